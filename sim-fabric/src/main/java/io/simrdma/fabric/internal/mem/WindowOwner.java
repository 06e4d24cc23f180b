package io.simrdma.fabric.internal.mem;

import io.simrdma.fabric.ProtectionDomain;

/**
 * A queue pair as the memory layer sees it: the PD its accesses are checked against, and the
 * count of type 2 memory windows bound to it (IBA 10.6.7.2.4: a type 2 window is bound to one QP;
 * ibv_destroy_qp(3) fails while such windows remain).
 *
 * <p>Called on the owning device's executor only.
 */
public interface WindowOwner {

    /** The QP's protection domain. */
    ProtectionDomain pd();

    /** A type 2 window was bound to ({@code +1}) or unbound from ({@code -1}) this QP. */
    void windowsBound(int delta);
}

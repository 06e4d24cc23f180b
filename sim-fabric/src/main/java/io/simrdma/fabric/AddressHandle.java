package io.simrdma.fabric;

/**
 * An address handle (ibv_create_ah(3)): the path a UD send takes to a remote port, named in each
 * UD send work request ({@link SendWr#ud}). It belongs to a protection domain, which a QP using
 * it must share.
 *
 * <p>Thread safety: thread-safe.
 */
public interface AddressHandle {

    /**
     * Bytes of the Global Routing Header at the start of every UD receive buffer: the receiver's
     * buffers must hold them before the data (ibv_post_recv(3), IBA 11.4.1.2: the first 40 bytes
     * of a UD receive are the GRH, whether or not one was present).
     */
    int GRH_LENGTH = 40;

    ProtectionDomain pd();

    /** The address vector it was created with. */
    AhAttr attr();

    /** False once destroyed. */
    boolean isValid();

    /**
     * Destroys the handle (ibv_destroy_ah(3)). Sends already posted with it still go out.
     *
     * @throws VerbsException ENOENT if already destroyed
     */
    void destroy();
}

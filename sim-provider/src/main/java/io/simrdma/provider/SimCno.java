package io.simrdma.provider;

import io.simrdma.dat.CnoParams;
import io.simrdma.dat.CnoWaitResult;
import io.simrdma.dat.ConsumerNotificationObject;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.HandleType;
import io.simrdma.dat.Timeout;
import io.simrdma.dat.WaitProxyAgent;
import io.simrdma.fabric.sched.WaitSignal;
import java.util.Optional;

/**
 * A Consumer Notification Object (dat_cno_create(3DAT)): wakes one waiter when any enabled EVD
 * associated with it receives a notification event while nobody waits on that EVD directly
 * (dat_cno_wait(3DAT)). An OS wait proxy agent is invoked in addition to that local delivery
 * (dat_cno_modify_agent(3DAT)), once: after it is invoked it is no longer associated with the CNO
 * (dat_cno_create(3DAT)). When the last associated EVD is freed, or the IA is closed, the waiters
 * of that moment and the agent are released with no EVD (dat_cno_wait(3DAT)); detaching an EVD
 * with dat_evd_modify_cno releases nobody.
 *
 * <p>Thread safety: thread-safe.
 */
final class SimCno extends SimHandle implements ConsumerNotificationObject {

    private final Object lock = new Object();
    private final WaitSignal signal;
    private WaitProxyAgent agent;
    private SimEvd pending;
    private int evds;
    /** Bumped when every associated EVD has been freed: releases the waiters of that moment. */
    private long releases;

    private int waiters;

    SimCno(SimIa ia, WaitProxyAgent agent) {
        super(ia, HandleType.CNO);
        this.agent = agent;
        this.signal = ia.fabric.scheduler().newSignal();
    }

    @Override
    DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_CNO;
    }

    void attach() {
        synchronized (lock) {
            evds++;
        }
    }

    /**
     * An EVD no longer refers to this CNO: {@code evdFreed} when the EVD was freed (or its IA closed),
     * false for dat_evd_modify_cno. Freeing the last one releases the waiters and the agent with no EVD.
     */
    void detach(boolean evdFreed) {
        WaitProxyAgent a = null;
        synchronized (lock) {
            evds--;
            if (!evdFreed || evds > 0) {
                return;
            }
            releases++;
            a = agent;
            agent = null;
        }
        signal.signalAll();
        if (a != null) {
            a.onNotification(null);
        }
    }

    /** An associated EVD got a notification event: wake a waiter and invoke the agent, once. */
    void trigger(SimEvd evd) {
        WaitProxyAgent a;
        synchronized (lock) {
            pending = evd;
            a = agent;
            agent = null;
        }
        signal.signalAll();
        if (a != null) {
            a.onNotification(evd);
        }
    }

    /** Threads blocked in dat_cno_wait. */
    int waiters() {
        synchronized (lock) {
            return waiters;
        }
    }

    @Override
    public CnoWaitResult waitForNotification(Timeout timeout) {
        checkHandle();
        if (timeout == null) {
            throw DatException.invalidParameter("timeout is null");
        }
        long nanos = timeout.isInfinite() ? -1 : timeout.toNanos();
        long released;
        synchronized (lock) {
            released = releases;
            waiters++;
        }
        try {
            signal.await(
                    () -> {
                        synchronized (lock) {
                            return pending != null || freed || ia.closed || releases != released;
                        }
                    },
                    nanos);
            if (Thread.interrupted()) {
                // provider-api: the call fails with DAT_INTERRUPTED_CALL and the thread's interrupt status is set again
                Thread.currentThread().interrupt();
                throw new DatException(DatReturnType.INTERRUPTED_CALL, "dat_cno_wait interrupted");
            }
            synchronized (lock) {
                if (pending != null) {
                    SimEvd e = pending;
                    pending = null;
                    return CnoWaitResult.notified(e);
                }
                if (freed || ia.closed || releases != released) {
                    // dat_cno_wait(3DAT): waiters are released with a null EVD when the IA closes or every EVD is
                    // freed.
                    return CnoWaitResult.notified(null);
                }
                return CnoWaitResult.timedOut();
            }
        } finally {
            synchronized (lock) {
                waiters--;
            }
        }
    }

    @Override
    public void modifyAgent(WaitProxyAgent newAgent) {
        checkHandle();
        synchronized (lock) {
            agent = newAgent;
        }
    }

    @Override
    public CnoParams query() {
        checkHandle();
        synchronized (lock) {
            return new CnoParams(ia, Optional.ofNullable(agent));
        }
    }

    /**
     * Frees the CNO (dat_cno_free(3DAT)).
     *
     * @throws DatException DAT_INVALID_STATE (CNO in use) while an EVD is associated with it or a
     *                      thread is blocked on it
     */
    @Override
    public void free() {
        checkHandle();
        synchronized (lock) {
            if (evds > 0 || waiters > 0) {
                throw invalidState(
                        DatReturnSubtype.INVALID_STATE_CNO_IN_USE,
                        evds + " EVD(s) are associated with this CNO and " + waiters
                                + " thread(s) wait on it (dat_cno_free(3DAT))");
            }
            freed = true;
            agent = null;
        }
        signal.signalAll();
        ia.forget(this);
    }

    /** Releases the CNO on an abrupt IA close: waiters and the agent get no EVD (dat_cno_wait(3DAT)). */
    @Override
    void destroy() {
        WaitProxyAgent a;
        synchronized (lock) {
            freed = true;
            a = agent;
            agent = null;
        }
        signal.signalAll();
        if (a != null) {
            a.onNotification(null);
        }
    }

    @Override
    public String toString() {
        return "CNO";
    }
}

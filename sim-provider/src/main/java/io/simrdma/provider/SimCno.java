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
 * (dat_cno_wait(3DAT)). With an OS wait proxy agent the agent is called instead
 * (dat_cno_modify_agent(3DAT)).
 *
 * <p>Thread safety: thread-safe.
 */
final class SimCno extends SimHandle implements ConsumerNotificationObject {

    private final Object lock = new Object();
    private final WaitSignal signal;
    private WaitProxyAgent agent;
    private SimEvd pending;
    private int evds;
    private boolean hadEvds;

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
            hadEvds = true;
        }
    }

    void detach() {
        synchronized (lock) {
            evds--;
        }
        signal.signalAll();
    }

    /** An associated EVD got a notification event. */
    void trigger(SimEvd evd) {
        WaitProxyAgent a;
        synchronized (lock) {
            a = agent;
            if (a == null) {
                pending = evd;
            }
        }
        if (a != null) {
            a.onNotification(evd);
        } else {
            signal.signalAll();
        }
    }

    @Override
    public CnoWaitResult waitForNotification(Timeout timeout) {
        checkHandle();
        if (timeout == null) {
            throw DatException.invalidParameter("timeout is null");
        }
        long nanos = timeout.isInfinite() ? -1 : timeout.toNanos();
        signal.await(() -> {
            synchronized (lock) {
                return pending != null || freed || ia.closed || (hadEvds && evds == 0);
            }
        }, nanos);
        if (Thread.interrupted()) {
            throw new DatException(DatReturnType.INTERRUPTED_CALL, "dat_cno_wait interrupted");
        }
        synchronized (lock) {
            if (pending != null) {
                SimEvd e = pending;
                pending = null;
                return CnoWaitResult.notified(e);
            }
            if (freed || ia.closed || (hadEvds && evds == 0)) {
                // dat_cno_wait(3DAT): waiters are released with a null EVD when the IA closes or every EVD is freed.
                return CnoWaitResult.notified(null);
            }
            return CnoWaitResult.timedOut();
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
     * @throws DatException DAT_INVALID_STATE (CNO in use) while an EVD is associated with it
     */
    @Override
    public void free() {
        checkHandle();
        synchronized (lock) {
            if (evds > 0) {
                throw invalidState(DatReturnSubtype.INVALID_STATE_CNO_IN_USE,
                        evds + " EVD(s) are associated with this CNO (dat_cno_free(3DAT))");
            }
        }
        destroy();
        ia.forget(this);
    }

    void destroy() {
        freed = true;
        signal.signalAll();
    }

    @Override
    public String toString() {
        return "CNO";
    }
}

package io.simrdma.fabric;

import java.util.Objects;

/**
 * What a queue pair is created with (struct ibv_qp_init_attr). Built fluently:
 * <pre>{@code
 * QpInitAttr attr = QpInitAttr.rc(cq, cq).caps(new QpCaps(64, 64, 2, 2, 0));
 * }</pre>
 *
 * <p>Thread safety: not thread-safe; the QP copies it at creation.
 */
public final class QpInitAttr {

    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private SharedReceiveQueue srq;
    private QpCaps caps = QpCaps.defaults();
    private QpType qpType = QpType.RC;
    private boolean sqSigAll;
    private Object context;

    /** An RC queue pair with the given CQs (they may be the same) and default capabilities. */
    public static QpInitAttr rc(CompletionQueue sendCq, CompletionQueue recvCq) {
        QpInitAttr a = new QpInitAttr();
        a.sendCq = Objects.requireNonNull(sendCq, "sendCq");
        a.recvCq = Objects.requireNonNull(recvCq, "recvCq");
        return a;
    }

    /** A UC queue pair (IBV_QPT_UC) with the given CQs and default capabilities. */
    public static QpInitAttr uc(CompletionQueue sendCq, CompletionQueue recvCq) {
        return rc(sendCq, recvCq).qpType(QpType.UC);
    }

    /** A UD queue pair (IBV_QPT_UD) with the given CQs and default capabilities. */
    public static QpInitAttr ud(CompletionQueue sendCq, CompletionQueue recvCq) {
        return rc(sendCq, recvCq).qpType(QpType.UD);
    }

    public QpInitAttr sendCq(CompletionQueue cq) {
        this.sendCq = cq;
        return this;
    }

    public QpInitAttr recvCq(CompletionQueue cq) {
        this.recvCq = cq;
        return this;
    }

    /** Take receives from {@code srq} instead of a receive queue of the QP's own. */
    public QpInitAttr srq(SharedReceiveQueue srq) {
        this.srq = srq;
        return this;
    }

    public QpInitAttr caps(QpCaps caps) {
        this.caps = Objects.requireNonNull(caps, "caps");
        return this;
    }

    public QpInitAttr qpType(QpType type) {
        this.qpType = Objects.requireNonNull(type, "type");
        return this;
    }

    /** When true every send WR generates a completion, whether SIGNALED or not. */
    public QpInitAttr sqSigAll(boolean all) {
        this.sqSigAll = all;
        return this;
    }

    /** An application object kept with the QP (qp_context). */
    public QpInitAttr context(Object context) {
        this.context = context;
        return this;
    }

    public CompletionQueue sendCq() {
        return sendCq;
    }

    public CompletionQueue recvCq() {
        return recvCq;
    }

    public SharedReceiveQueue srq() {
        return srq;
    }

    public QpCaps caps() {
        return caps;
    }

    public QpType qpType() {
        return qpType;
    }

    public boolean sqSigAll() {
        return sqSigAll;
    }

    public Object context() {
        return context;
    }
}

package io.simrdma.fabric;

import java.util.EnumSet;
import java.util.Set;

/**
 * Queue pair attributes (struct ibv_qp_attr) together with the mask of those set: each setter
 * records its attribute in {@link #mask()}, so a modify names exactly what it changes.
 * <pre>{@code
 * qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1)
 *         .accessFlags(EnumSet.of(AccessFlag.REMOTE_WRITE)));
 * }</pre>
 * {@link QueuePair#query()} returns one with every attribute filled and the full mask.
 *
 * <p>Thread safety: not thread-safe.
 */
public final class QpAttr {

    private final EnumSet<QpAttrMask> mask = EnumSet.noneOf(QpAttrMask.class);
    QpState state;
    QpState curState;
    boolean enSqdAsyncNotify;
    int accessFlags;
    int pkeyIndex;
    int port;
    int qkey;
    AhAttr av;
    Mtu pathMtu;
    int timeout;
    int retryCnt;
    int rnrRetry;
    int rqPsn;
    int maxRdAtomic;
    int minRnrTimer;
    int sqPsn;
    int maxDestRdAtomic;
    int destQpn;
    QpCaps cap;
    AhAttr altAv;
    int pathMigState;
    int rateLimit;
    boolean sqDraining;

    private QpAttr set(QpAttrMask m) {
        mask.add(m);
        return this;
    }

    /** The attributes set so far. */
    public Set<QpAttrMask> mask() {
        return EnumSet.copyOf(mask);
    }

    /** True if {@code m} was set. */
    public boolean has(QpAttrMask m) {
        return mask.contains(m);
    }

    /** Move the QP to this state. */
    public QpAttr state(QpState s) {
        this.state = s;
        return set(QpAttrMask.STATE);
    }

    /** Assert the QP's current state (the call fails if it is another). */
    public QpAttr curState(QpState s) {
        this.curState = s;
        return set(QpAttrMask.CUR_STATE);
    }

    /** Raise SQ_DRAINED when the send queue has drained after moving to SQD. */
    public QpAttr enSqdAsyncNotify(boolean on) {
        this.enSqdAsyncNotify = on;
        return set(QpAttrMask.EN_SQD_ASYNC_NOTIFY);
    }

    /** Remote operations the QP accepts: REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC. */
    public QpAttr accessFlags(Set<AccessFlag> flags) {
        this.accessFlags = AccessFlag.mask(flags);
        return set(QpAttrMask.ACCESS_FLAGS);
    }

    public QpAttr pkeyIndex(int i) {
        this.pkeyIndex = i;
        return set(QpAttrMask.PKEY_INDEX);
    }

    public QpAttr port(int p) {
        this.port = p;
        return set(QpAttrMask.PORT);
    }

    /** Q_Key (UD only; an RC QP refuses it). */
    public QpAttr qkey(int q) {
        this.qkey = q;
        return set(QpAttrMask.QKEY);
    }

    /** Primary path address vector. */
    public QpAttr av(AhAttr a) {
        this.av = a;
        return set(QpAttrMask.AV);
    }

    public QpAttr pathMtu(Mtu m) {
        this.pathMtu = m;
        return set(QpAttrMask.PATH_MTU);
    }

    /** Local ACK timeout exponent: 4.096 us x 2^timeout; 0 waits forever. */
    public QpAttr timeout(int t) {
        this.timeout = t;
        return set(QpAttrMask.TIMEOUT);
    }

    /** Retries after a timeout or sequence error before RETRY_EXC_ERR (0-7). */
    public QpAttr retryCnt(int n) {
        this.retryCnt = n;
        return set(QpAttrMask.RETRY_CNT);
    }

    /** Retries after an RNR NAK before RNR_RETRY_EXC_ERR (0-6; 7 retries forever). */
    public QpAttr rnrRetry(int n) {
        this.rnrRetry = n;
        return set(QpAttrMask.RNR_RETRY);
    }

    public QpAttr rqPsn(int psn) {
        this.rqPsn = psn;
        return set(QpAttrMask.RQ_PSN);
    }

    /** RDMA READs and atomics this QP may have outstanding as initiator. */
    public QpAttr maxRdAtomic(int n) {
        this.maxRdAtomic = n;
        return set(QpAttrMask.MAX_QP_RD_ATOMIC);
    }

    /** Alternate path (automatic path migration); simrdma devices do not support it. */
    /**
     * The path migration state (path_mig_state: 0 MIGRATED, 1 REARM, 2 ARMED). simrdma's devices
     * do not support automatic path migration, so a modify that sets it fails with EINVAL.
     */
    public QpAttr pathMigState(int state) {
        this.pathMigState = state;
        return set(QpAttrMask.PATH_MIG_STATE);
    }

    public QpAttr altAv(AhAttr a) {
        this.altAv = a;
        return set(QpAttrMask.ALT_PATH);
    }

    /** RNR NAK timer code this QP sends (0-31, IBA table 45). */
    public QpAttr minRnrTimer(int code) {
        this.minRnrTimer = code;
        return set(QpAttrMask.MIN_RNR_TIMER);
    }

    public QpAttr sqPsn(int psn) {
        this.sqPsn = psn;
        return set(QpAttrMask.SQ_PSN);
    }

    /** Responder resources for incoming RDMA READs and atomics. */
    public QpAttr maxDestRdAtomic(int n) {
        this.maxDestRdAtomic = n;
        return set(QpAttrMask.MAX_DEST_RD_ATOMIC);
    }

    public QpAttr destQpn(int qpn) {
        this.destQpn = qpn;
        return set(QpAttrMask.DEST_QPN);
    }

    /** QP resize; simrdma devices do not support it. */
    public QpAttr cap(QpCaps c) {
        this.cap = c;
        return set(QpAttrMask.CAP);
    }

    /** Packet pacing rate in kbps (raw packet QPs only; an RC QP refuses it). */
    public QpAttr rateLimit(int kbps) {
        this.rateLimit = kbps;
        return set(QpAttrMask.RATE_LIMIT);
    }

    public QpState state() {
        return state;
    }

    public QpState curState() {
        return curState;
    }

    public boolean enSqdAsyncNotify() {
        return enSqdAsyncNotify;
    }

    /** The access flags as {@link AccessFlag#bit()} bits. */
    public int accessFlagBits() {
        return accessFlags;
    }

    public Set<AccessFlag> accessFlags() {
        return AccessFlag.fromMask(accessFlags);
    }

    public int pkeyIndex() {
        return pkeyIndex;
    }

    public int port() {
        return port;
    }

    public int qkey() {
        return qkey;
    }

    public AhAttr av() {
        return av;
    }

    public Mtu pathMtu() {
        return pathMtu;
    }

    public int timeout() {
        return timeout;
    }

    public int retryCnt() {
        return retryCnt;
    }

    public int rnrRetry() {
        return rnrRetry;
    }

    public int rqPsn() {
        return rqPsn;
    }

    public int maxRdAtomic() {
        return maxRdAtomic;
    }

    public int minRnrTimer() {
        return minRnrTimer;
    }

    public int sqPsn() {
        return sqPsn;
    }

    public int maxDestRdAtomic() {
        return maxDestRdAtomic;
    }

    public int destQpn() {
        return destQpn;
    }

    public QpCaps cap() {
        return cap;
    }

    public AhAttr altAv() {
        return altAv;
    }

    /** In a query of an SQD QP: true while the send queue is still draining. */
    public boolean sqDraining() {
        return sqDraining;
    }

    /** Sets the output attribute {@link #sqDraining()} (ibv_query_qp(3) fills it in; modify ignores it). */
    public QpAttr sqDraining(boolean draining) {
        this.sqDraining = draining;
        return this;
    }

    @Override
    public String toString() {
        return "QpAttr" + mask + "[state=" + state + ", mtu=" + pathMtu + ", destQpn=" + destQpn + ", rqPsn=" + rqPsn
                + ", sqPsn=" + sqPsn + "]";
    }
}

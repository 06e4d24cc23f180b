package io.simrdma.provider;

import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.fabric.WcStatus;

/**
 * How verbs completion statuses map to DAT DTO completion statuses (after the uDAPL openib
 * providers): one table, so every status has exactly one meaning.
 */
final class Statuses {

    private static final DtoCompletionStatus[] MAP = new DtoCompletionStatus[WcStatus.values().length];

    static {
        for (WcStatus s : WcStatus.values()) {
            MAP[s.ordinal()] = DtoCompletionStatus.ERR_TRANSPORT;
        }
        MAP[WcStatus.SUCCESS.ordinal()] = DtoCompletionStatus.SUCCESS;
        MAP[WcStatus.WR_FLUSH_ERR.ordinal()] = DtoCompletionStatus.ERR_FLUSHED;
        MAP[WcStatus.LOC_LEN_ERR.ordinal()] = DtoCompletionStatus.ERR_LOCAL_LENGTH;
        MAP[WcStatus.LOC_QP_OP_ERR.ordinal()] = DtoCompletionStatus.ERR_LOCAL_EP;
        MAP[WcStatus.LOC_EEC_OP_ERR.ordinal()] = DtoCompletionStatus.ERR_LOCAL_EP;
        MAP[WcStatus.LOC_PROT_ERR.ordinal()] = DtoCompletionStatus.ERR_LOCAL_PROTECTION;
        MAP[WcStatus.LOC_ACCESS_ERR.ordinal()] = DtoCompletionStatus.ERR_LOCAL_PROTECTION;
        MAP[WcStatus.MW_BIND_ERR.ordinal()] = DtoCompletionStatus.RMR_OPERATION_FAILED;
        MAP[WcStatus.BAD_RESP_ERR.ordinal()] = DtoCompletionStatus.ERR_BAD_RESPONSE;
        MAP[WcStatus.REM_ACCESS_ERR.ordinal()] = DtoCompletionStatus.ERR_REMOTE_ACCESS;
        MAP[WcStatus.REM_INV_REQ_ERR.ordinal()] = DtoCompletionStatus.ERR_REMOTE_RESPONDER;
        MAP[WcStatus.REM_OP_ERR.ordinal()] = DtoCompletionStatus.ERR_REMOTE_RESPONDER;
        MAP[WcStatus.REM_INV_RD_REQ_ERR.ordinal()] = DtoCompletionStatus.ERR_REMOTE_RESPONDER;
        MAP[WcStatus.REM_ABORT_ERR.ordinal()] = DtoCompletionStatus.ERR_REMOTE_RESPONDER;
        MAP[WcStatus.RETRY_EXC_ERR.ordinal()] = DtoCompletionStatus.ERR_TRANSPORT;
        MAP[WcStatus.RNR_RETRY_EXC_ERR.ordinal()] = DtoCompletionStatus.ERR_RECEIVER_NOT_READY;
    }

    private Statuses() {}

    /**
     * The DAT status of a verbs completion. A receive flushed after part of its message arrived is
     * DAT_DTO_ERR_PARTIAL_PACKET (the verbs layer marks it with vendor error
     * {@link io.simrdma.fabric.WorkCompletion#VENDOR_ERR_PARTIAL_MESSAGE}).
     */
    static DtoCompletionStatus of(WcStatus s, int vendorErr) {
        if (s == WcStatus.WR_FLUSH_ERR && vendorErr == io.simrdma.fabric.WorkCompletion.VENDOR_ERR_PARTIAL_MESSAGE) {
            return DtoCompletionStatus.ERR_PARTIAL_PACKET;
        }
        return MAP[s.ordinal()];
    }
}

package io.simrdma.provider;

import static io.simrdma.provider.SimHandle.range;

import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.IaAttributes;
import io.simrdma.dat.Qos;
import io.simrdma.dat.ServiceType;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * What the sim provider accepts as endpoint attributes ({@code DAT_EP_ATTR}): the defaults that
 * dat_ep_create(3DAT) gives for NULL attributes, and the checks of a consumer's attributes against
 * the IA's limits that dat_ep_create(3DAT), dat_ep_create_with_srq(3DAT) and dat_ep_modify(3DAT)
 * make.
 *
 * <p>Callers: {@link SimEp} (create, modify) and {@link SimPsp} (the attributes of a provider's
 * endpoint). Stateless and thread-safe.
 */
final class EpAttributeRules {

    /** The endpoint's recv_completion_flags may be one of these (or none). */
    private static final Set<CompletionFlag> RECV_EP_FLAGS =
            EnumSet.of(CompletionFlag.UNSIGNALLED, CompletionFlag.SOLICITED_WAIT, CompletionFlag.EVD_THRESHOLD);
    /** The endpoint's request_completion_flags may be one of these (or none). */
    private static final Set<CompletionFlag> REQUEST_EP_FLAGS =
            EnumSet.of(CompletionFlag.UNSIGNALLED, CompletionFlag.EVD_THRESHOLD);

    private EpAttributeRules() {}

    /** Default endpoint attributes: what dat_ep_create(3DAT) with NULL attributes gives. */
    static EpAttributes defaults(SimIa ia) {
        return EpAttributes.builder()
                .serviceType(ServiceType.RC)
                .maxMessageSize(1 << 20)
                .maxRdmaSize(1 << 20)
                .qos(Qos.BEST_EFFORT)
                .recvCompletionFlags(EnumSet.noneOf(CompletionFlag.class))
                .requestCompletionFlags(EnumSet.noneOf(CompletionFlag.class))
                .maxRecvDtos(Math.min(64, ia.attributes().maxDtoPerEp()))
                .maxRequestDtos(Math.min(64, ia.attributes().maxDtoPerEp()))
                .maxRecvIov(Math.min(4, ia.attributes().maxIovSegmentsPerDto()))
                .maxRequestIov(Math.min(4, ia.attributes().maxIovSegmentsPerDto()))
                .maxRdmaReadIn(Math.min(4, ia.attributes().maxRdmaReadIn()))
                .maxRdmaReadOut(Math.min(4, ia.attributes().maxRdmaReadOut()))
                .srqSoftHw(Dat.HW_DEFAULT)
                .maxRdmaReadIov(Math.min(4, ia.attributes().maxIovSegmentsPerRdmaRead()))
                .maxRdmaWriteIov(Math.min(4, ia.attributes().maxIovSegmentsPerRdmaWrite()))
                .transportSpecific(List.of())
                .providerSpecific(List.of())
                .build();
    }

    /** Checks endpoint attributes against the IA's limits (DAT_INVALID_PARAMETER). */
    static void validate(SimIa ia, EpAttributes a, SimSrq srq) {
        IaAttributes limits = ia.attributes();
        if (a.serviceType() != ServiceType.RC) {
            throw new DatException(DatReturnType.MODEL_NOT_SUPPORTED, "only the RC service type is supported");
        }
        if (a.qos() != Qos.BEST_EFFORT) {
            throw new DatException(DatReturnType.MODEL_NOT_SUPPORTED, "only best-effort QoS is supported");
        }
        range(a.maxMessageSize(), 1, limits.maxMessageSize(), "max_message_size");
        range(a.maxRdmaSize(), 0, limits.maxRdmaSize(), "max_rdma_size");
        range(a.maxRequestDtos(), 1, limits.maxDtoPerEp(), "max_request_dtos");
        range(a.maxRequestIov(), 1, limits.maxIovSegmentsPerDto(), "max_request_iov");
        if (srq == null) {
            range(a.maxRecvDtos(), 1, limits.maxDtoPerEp(), "max_recv_dtos");
            range(a.maxRecvIov(), 1, limits.maxIovSegmentsPerDto(), "max_recv_iov");
        } else {
            // dat_ep_create_with_srq(3DAT): max_recv_dtos is kept exactly, so it must be one the IA can give
            // (the EP posts no receives itself: 0 is fine); max_recv_iov is ignored.
            range(a.maxRecvDtos(), 0, limits.maxDtoPerEp(), "max_recv_dtos");
        }
        range(a.maxRdmaReadIn(), 0, limits.maxRdmaReadIn(), "max_rdma_read_in");
        range(a.maxRdmaReadOut(), 0, limits.maxRdmaReadOut(), "max_rdma_read_out");
        range(a.maxRdmaReadIov(), 0, limits.maxIovSegmentsPerRdmaRead(), "max_rdma_read_iov");
        range(a.maxRdmaWriteIov(), 0, limits.maxIovSegmentsPerRdmaWrite(), "max_rdma_write_iov");
        // dat_ep_modify(3DAT): the Recv Completion Flags value is UNSIGNALLED, SOLICITED_WAIT or EVD_THRESHOLD
        // ("Recv posting does not support" SUPPRESS or BARRIER_FENCE); the Request Completion Flags value is
        // UNSIGNALLED or EVD_THRESHOLD (SUPPRESS, SOLICITED_WAIT and BARRIER_FENCE are flags of each post).
        // One value each (dat.h: UNSIGNALLED is not allowed with EVD_THRESHOLD); none is the default.
        checkEpFlags(a.recvCompletionFlags(), RECV_EP_FLAGS, "recv_completion_flags");
        checkEpFlags(a.requestCompletionFlags(), REQUEST_EP_FLAGS, "request_completion_flags");
    }

    private static void checkEpFlags(Set<CompletionFlag> f, Set<CompletionFlag> allowed, String name) {
        if (f.size() > 1 || !allowed.containsAll(f)) {
            throw DatException.invalidParameter(name + " " + f + " is not the default or one of " + allowed);
        }
    }
}

package io.simrdma.dat;

import java.util.List;
import java.util.Set;

/**
 * The attributes of an Endpoint ({@code DAT_EP_ATTR}): given to
 * {@link InterfaceAdapter#createEndpoint} (or {@code null} for the provider's defaults), returned
 * inside {@link EpParams} by {@link Endpoint#query()}, changed with {@link Endpoint#modify}. The
 * {@code ep_transport_specific_count} and {@code ep_provider_specific_count} of the C struct are the
 * sizes of the two lists. Build with {@link #builder()}.
 *
 * <p>Thread safety: immutable.
 *
 * @param serviceType the transport service; {@link ServiceType#RC}
 * @param maxMessageSize the largest message, in bytes
 * @param maxRdmaSize the largest RDMA transfer, in bytes
 * @param qos the quality of service
 * @param recvCompletionFlags completion flags for receives ({@link CompletionFlag#UNSIGNALLED},
 *        {@link CompletionFlag#SOLICITED_WAIT} or {@link CompletionFlag#EVD_THRESHOLD}; empty:
 *        default)
 * @param requestCompletionFlags completion flags for Sends, RDMA and binds
 *        ({@link CompletionFlag#UNSIGNALLED} or {@link CompletionFlag#EVD_THRESHOLD}; empty: default)
 * @param maxRecvDtos outstanding receives the EP must hold
 * @param maxRequestDtos outstanding Sends, RDMA and binds the EP must hold
 * @param maxRecvIov segments per receive
 * @param maxRequestIov segments per Send or RDMA
 * @param maxRdmaReadIn outstanding RDMA Reads with this EP as target
 * @param maxRdmaReadOut outstanding RDMA Reads with this EP as originator
 * @param srqSoftHw the soft high watermark for an SRQ EP, or {@link Dat#HW_DEFAULT}
 * @param maxRdmaReadIov segments per RDMA Read
 * @param maxRdmaWriteIov segments per RDMA Write
 * @param transportSpecific transport-specific attributes
 * @param providerSpecific provider-specific attributes
 */
public record EpAttributes(
        ServiceType serviceType,
        long maxMessageSize,
        long maxRdmaSize,
        Qos qos,
        Set<CompletionFlag> recvCompletionFlags,
        Set<CompletionFlag> requestCompletionFlags,
        int maxRecvDtos,
        int maxRequestDtos,
        int maxRecvIov,
        int maxRequestIov,
        int maxRdmaReadIn,
        int maxRdmaReadOut,
        int srqSoftHw,
        int maxRdmaReadIov,
        int maxRdmaWriteIov,
        List<NamedAttribute> transportSpecific,
        List<NamedAttribute> providerSpecific) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null component, a negative size or
     *         count, or a soft watermark that is neither a count nor {@link Dat#HW_DEFAULT}
     */
    public EpAttributes {
        Checks.notNull(serviceType, "serviceType");
        Checks.nonNegative(maxMessageSize, "maxMessageSize");
        Checks.nonNegative(maxRdmaSize, "maxRdmaSize");
        Checks.notNull(qos, "qos");
        recvCompletionFlags = Checks.enumSet(recvCompletionFlags, CompletionFlag.class, "recvCompletionFlags");
        requestCompletionFlags = Checks.enumSet(requestCompletionFlags, CompletionFlag.class, "requestCompletionFlags");
        Checks.nonNegative(maxRecvDtos, "maxRecvDtos");
        Checks.nonNegative(maxRequestDtos, "maxRequestDtos");
        Checks.nonNegative(maxRecvIov, "maxRecvIov");
        Checks.nonNegative(maxRequestIov, "maxRequestIov");
        Checks.nonNegative(maxRdmaReadIn, "maxRdmaReadIn");
        Checks.nonNegative(maxRdmaReadOut, "maxRdmaReadOut");
        Checks.watermark(srqSoftHw, "srqSoftHw");
        Checks.nonNegative(maxRdmaReadIov, "maxRdmaReadIov");
        Checks.nonNegative(maxRdmaWriteIov, "maxRdmaWriteIov");
        transportSpecific = Checks.list(transportSpecific, "transportSpecific");
        providerSpecific = Checks.list(providerSpecific, "providerSpecific");
    }

    /**
     * A builder starting from: RC, best effort, default completion flags, every size and count 0
     * (RDMA Read limits 0, as dat_ep_create recommends when the consumer does not care), soft
     * watermark {@link Dat#HW_DEFAULT}, no named attributes.
     */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these attributes. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.serviceType = serviceType;
        b.maxMessageSize = maxMessageSize;
        b.maxRdmaSize = maxRdmaSize;
        b.qos = qos;
        b.recvCompletionFlags = recvCompletionFlags;
        b.requestCompletionFlags = requestCompletionFlags;
        b.maxRecvDtos = maxRecvDtos;
        b.maxRequestDtos = maxRequestDtos;
        b.maxRecvIov = maxRecvIov;
        b.maxRequestIov = maxRequestIov;
        b.maxRdmaReadIn = maxRdmaReadIn;
        b.maxRdmaReadOut = maxRdmaReadOut;
        b.srqSoftHw = srqSoftHw;
        b.maxRdmaReadIov = maxRdmaReadIov;
        b.maxRdmaWriteIov = maxRdmaWriteIov;
        b.transportSpecific = transportSpecific;
        b.providerSpecific = providerSpecific;
        return b;
    }

    /**
     * Builds {@link EpAttributes}; values are checked once, in {@link #build()}.
     *
     * <p>Thread safety: not thread-safe.
     */
    public static final class Builder {
        private ServiceType serviceType = ServiceType.RC;
        private long maxMessageSize;
        private long maxRdmaSize;
        private Qos qos = Qos.BEST_EFFORT;
        private Set<CompletionFlag> recvCompletionFlags = Set.of();
        private Set<CompletionFlag> requestCompletionFlags = Set.of();
        private int maxRecvDtos;
        private int maxRequestDtos;
        private int maxRecvIov;
        private int maxRequestIov;
        private int maxRdmaReadIn;
        private int maxRdmaReadOut;
        private int srqSoftHw = Dat.HW_DEFAULT;
        private int maxRdmaReadIov;
        private int maxRdmaWriteIov;
        private List<NamedAttribute> transportSpecific = List.of();
        private List<NamedAttribute> providerSpecific = List.of();

        private Builder() {}

        /** @see EpAttributes#serviceType() */
        public Builder serviceType(ServiceType v) {
            serviceType = v;
            return this;
        }

        /** @see EpAttributes#maxMessageSize() */
        public Builder maxMessageSize(long v) {
            maxMessageSize = v;
            return this;
        }

        /** @see EpAttributes#maxRdmaSize() */
        public Builder maxRdmaSize(long v) {
            maxRdmaSize = v;
            return this;
        }

        /** @see EpAttributes#qos() */
        public Builder qos(Qos v) {
            qos = v;
            return this;
        }

        /** @see EpAttributes#recvCompletionFlags() */
        public Builder recvCompletionFlags(Set<CompletionFlag> v) {
            recvCompletionFlags = v;
            return this;
        }

        /** @see EpAttributes#requestCompletionFlags() */
        public Builder requestCompletionFlags(Set<CompletionFlag> v) {
            requestCompletionFlags = v;
            return this;
        }

        /** @see EpAttributes#maxRecvDtos() */
        public Builder maxRecvDtos(int v) {
            maxRecvDtos = v;
            return this;
        }

        /** @see EpAttributes#maxRequestDtos() */
        public Builder maxRequestDtos(int v) {
            maxRequestDtos = v;
            return this;
        }

        /** @see EpAttributes#maxRecvIov() */
        public Builder maxRecvIov(int v) {
            maxRecvIov = v;
            return this;
        }

        /** @see EpAttributes#maxRequestIov() */
        public Builder maxRequestIov(int v) {
            maxRequestIov = v;
            return this;
        }

        /** @see EpAttributes#maxRdmaReadIn() */
        public Builder maxRdmaReadIn(int v) {
            maxRdmaReadIn = v;
            return this;
        }

        /** @see EpAttributes#maxRdmaReadOut() */
        public Builder maxRdmaReadOut(int v) {
            maxRdmaReadOut = v;
            return this;
        }

        /** @see EpAttributes#srqSoftHw() */
        public Builder srqSoftHw(int v) {
            srqSoftHw = v;
            return this;
        }

        /** @see EpAttributes#maxRdmaReadIov() */
        public Builder maxRdmaReadIov(int v) {
            maxRdmaReadIov = v;
            return this;
        }

        /** @see EpAttributes#maxRdmaWriteIov() */
        public Builder maxRdmaWriteIov(int v) {
            maxRdmaWriteIov = v;
            return this;
        }

        /** @see EpAttributes#transportSpecific() */
        public Builder transportSpecific(List<NamedAttribute> v) {
            transportSpecific = v;
            return this;
        }

        /** @see EpAttributes#providerSpecific() */
        public Builder providerSpecific(List<NamedAttribute> v) {
            providerSpecific = v;
            return this;
        }

        /**
         * The attributes.
         *
         * @throws DatException {@code DAT_INVALID_PARAMETER} as the record's constructor
         */
        public EpAttributes build() {
            return new EpAttributes(
                    serviceType,
                    maxMessageSize,
                    maxRdmaSize,
                    qos,
                    recvCompletionFlags,
                    requestCompletionFlags,
                    maxRecvDtos,
                    maxRequestDtos,
                    maxRecvIov,
                    maxRequestIov,
                    maxRdmaReadIn,
                    maxRdmaReadOut,
                    srqSoftHw,
                    maxRdmaReadIov,
                    maxRdmaWriteIov,
                    transportSpecific,
                    providerSpecific);
        }
    }
}

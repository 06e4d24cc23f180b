package io.simrdma.dat;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The attributes of a provider ({@code DAT_PROVIDER_ATTR}), specific to the open IA instance, as
 * {@link InterfaceAdapter#query()} returns them in {@link IaQueryResult}. A provider states its
 * limits here: private data size, thread safety, completion flags, stream merging, SRQ support.
 * Fields 1 to 26 are those of udat.h in declaration order ({@code num_provider_specific_attr} is
 * the size of the last list); {@link #maxIaInstances()} is a simrdma extension. Build with
 * {@link #builder()}.
 *
 * <p>Thread safety: immutable.
 *
 * @param providerName the name of the provider
 * @param providerVersionMajor the provider major version
 * @param providerVersionMinor the provider minor version
 * @param daplVersionMajor the DAT API major version supported
 * @param daplVersionMinor the DAT API minor version supported
 * @param lmrMemTypesSupported memory types dat_lmr_create registers (dat_ia_query: every provider must support virtual,
 *         LMR and shared virtual)
 * @param iovOwnershipOnReturn who owns a posted IOV list when the post returns
 * @param qosSupported the connection qualities of service supported
 * @param completionFlagsSupported the completion flags supported
 * @param threadSafe whether the provider is thread-safe ({@code is_thread_safe})
 * @param maxPrivateDataSize the most private data, in bytes, of dat_ep_connect, dat_ep_dup_connect and dat_cr_accept;
 *         at least 64 (dat_ia_query); more fails with DAT_INVALID_PARAMETER
 * @param supportsMultipath whether connections can be multipathed ({@link ConnectFlag#MULTIPATH})
 * @param epCreator who can create an EP for a PSP connection request
 * @param pzSupport the kind of protection PZs give
 * @param optimalBufferAlignment the buffer alignment for best performance; divides {@link Dat#OPTIMAL_ALIGNMENT} (256),
 *         at most 256
 * @param evdStreamMerging which event streams can share an EVD ({@code evd_stream_merging_supported})
 * @param srqSupported whether SRQs are supported
 * @param srqWatermarksSupported SRQ watermark support ({@code srq_watermarks_supported}, a {@code DAT_COUNT} the header
 *         does not explain)
 * @param srqEpPzDifferenceSupported whether an EP may have another PZ than its SRQ
 * @param srqInfoSupported SRQ count query support ({@code srq_info_supported})
 * @param epRecvInfoSupported dat_ep_recv_query support ({@code ep_recv_info_supported})
 * @param lmrSyncRequired whether dat_lmr_sync_rdma_read/write are needed ({@code lmr_sync_req})
 * @param dtoAsyncReturnGuaranteed {@code dto_async_return_guaranteed}
 * @param rdmaWriteForRdmaReadRequired whether the target of an RDMA Read needs remote write privilege ({@code
 *         rdma_write_for_rdma_read_req})
 * @param providerSpecificAttributes provider-specific attributes ({@code num_provider_specific_attr} is the size)
 * @param maxIaInstances simrdma extension, not in {@code DAT_PROVIDER_ATTR}: the most IA instances the provider has
 *         open at once (more fail with DAT_INSUFFICIENT_RESOURCES); {@link Integer#MAX_VALUE} for no limit
 */
public record ProviderAttributes(
        String providerName,
        int providerVersionMajor,
        int providerVersionMinor,
        int daplVersionMajor,
        int daplVersionMinor,
        Set<MemoryType> lmrMemTypesSupported,
        IovOwnership iovOwnershipOnReturn,
        Set<Qos> qosSupported,
        Set<CompletionFlag> completionFlagsSupported,
        boolean threadSafe,
        int maxPrivateDataSize,
        boolean supportsMultipath,
        PspEpCreator epCreator,
        PzSupport pzSupport,
        int optimalBufferAlignment,
        EvdStreamMerging evdStreamMerging,
        boolean srqSupported,
        int srqWatermarksSupported,
        boolean srqEpPzDifferenceSupported,
        int srqInfoSupported,
        int epRecvInfoSupported,
        boolean lmrSyncRequired,
        boolean dtoAsyncReturnGuaranteed,
        boolean rdmaWriteForRdmaReadRequired,
        List<NamedAttribute> providerSpecificAttributes,
        int maxIaInstances) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null component, a negative count, a
     *         private data size below 64, or an alignment that does not divide 256
     */
    public ProviderAttributes {
        Checks.notNull(providerName, "providerName");
        if (maxPrivateDataSize < 64) {
            throw DatException.invalidParameter(
                    "maxPrivateDataSize " + maxPrivateDataSize + " is below the 64 bytes dat_ia_query requires");
        }
        if (optimalBufferAlignment <= 0 || Dat.OPTIMAL_ALIGNMENT % optimalBufferAlignment != 0) {
            throw DatException.invalidParameter("optimalBufferAlignment " + optimalBufferAlignment
                    + " does not divide DAT_OPTIMAL_ALIGNMENT (256)");
        }
        if (maxIaInstances < 1) {
            throw DatException.invalidParameter("maxIaInstances " + maxIaInstances + " is below 1");
        }
        Checks.nonNegative(providerVersionMajor, "providerVersionMajor");
        Checks.nonNegative(providerVersionMinor, "providerVersionMinor");
        Checks.nonNegative(daplVersionMajor, "daplVersionMajor");
        Checks.nonNegative(daplVersionMinor, "daplVersionMinor");
        lmrMemTypesSupported = Checks.enumSet(lmrMemTypesSupported, MemoryType.class, "lmrMemTypesSupported");
        Checks.notNull(iovOwnershipOnReturn, "iovOwnershipOnReturn");
        qosSupported = Checks.enumSet(qosSupported, Qos.class, "qosSupported");
        completionFlagsSupported =
                Checks.enumSet(completionFlagsSupported, CompletionFlag.class, "completionFlagsSupported");
        Checks.notNull(epCreator, "epCreator");
        Checks.notNull(pzSupport, "pzSupport");
        Checks.notNull(evdStreamMerging, "evdStreamMerging");
        Checks.nonNegative(srqWatermarksSupported, "srqWatermarksSupported");
        Checks.nonNegative(srqInfoSupported, "srqInfoSupported");
        Checks.nonNegative(epRecvInfoSupported, "epRecvInfoSupported");
        providerSpecificAttributes = Checks.list(providerSpecificAttributes, "providerSpecificAttributes");
    }

    /** The C {@code DAT_COMPLETION_FLAGS} word of {@link #completionFlagsSupported()}. */
    public long completionFlagsSupportedBits() {
        return BitFlag.toBits(completionFlagsSupported);
    }

    /**
     * A builder: DAT 1.2, the three mandatory memory types, consumer IOV ownership, best effort, 64 bytes of private
     * data, every stream mergeable, alignment 256, no IA limit; the provider name must be set.
     */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.providerName = providerName;
        b.providerVersionMajor = providerVersionMajor;
        b.providerVersionMinor = providerVersionMinor;
        b.daplVersionMajor = daplVersionMajor;
        b.daplVersionMinor = daplVersionMinor;
        b.lmrMemTypesSupported = lmrMemTypesSupported;
        b.iovOwnershipOnReturn = iovOwnershipOnReturn;
        b.qosSupported = qosSupported;
        b.completionFlagsSupported = completionFlagsSupported;
        b.threadSafe = threadSafe;
        b.maxPrivateDataSize = maxPrivateDataSize;
        b.supportsMultipath = supportsMultipath;
        b.epCreator = epCreator;
        b.pzSupport = pzSupport;
        b.optimalBufferAlignment = optimalBufferAlignment;
        b.evdStreamMerging = evdStreamMerging;
        b.srqSupported = srqSupported;
        b.srqWatermarksSupported = srqWatermarksSupported;
        b.srqEpPzDifferenceSupported = srqEpPzDifferenceSupported;
        b.srqInfoSupported = srqInfoSupported;
        b.epRecvInfoSupported = epRecvInfoSupported;
        b.lmrSyncRequired = lmrSyncRequired;
        b.dtoAsyncReturnGuaranteed = dtoAsyncReturnGuaranteed;
        b.rdmaWriteForRdmaReadRequired = rdmaWriteForRdmaReadRequired;
        b.providerSpecificAttributes = providerSpecificAttributes;
        b.maxIaInstances = maxIaInstances;
        return b;
    }

    /**
     * Builds {@link ProviderAttributes}; values are checked once, in {@link #build()}.
     *
     * <p>Thread safety: not thread-safe.
     */
    public static final class Builder {
        private String providerName = null;
        private int providerVersionMajor = 0;
        private int providerVersionMinor = 0;
        private int daplVersionMajor = Dat.VERSION_MAJOR;
        private int daplVersionMinor = Dat.VERSION_MINOR;
        private Set<MemoryType> lmrMemTypesSupported =
                EnumSet.of(MemoryType.VIRTUAL, MemoryType.LMR, MemoryType.SHARED_VIRTUAL);
        private IovOwnership iovOwnershipOnReturn = IovOwnership.CONSUMER;
        private Set<Qos> qosSupported = EnumSet.of(Qos.BEST_EFFORT);
        private Set<CompletionFlag> completionFlagsSupported = EnumSet.noneOf(CompletionFlag.class);
        private boolean threadSafe = false;
        private int maxPrivateDataSize = 64;
        private boolean supportsMultipath = false;
        private PspEpCreator epCreator = PspEpCreator.NEVER;
        private PzSupport pzSupport = PzSupport.UNIQUE;
        private int optimalBufferAlignment = Dat.OPTIMAL_ALIGNMENT;
        private EvdStreamMerging evdStreamMerging = EvdStreamMerging.all();
        private boolean srqSupported = false;
        private int srqWatermarksSupported = 0;
        private boolean srqEpPzDifferenceSupported = false;
        private int srqInfoSupported = 0;
        private int epRecvInfoSupported = 0;
        private boolean lmrSyncRequired = false;
        private boolean dtoAsyncReturnGuaranteed = false;
        private boolean rdmaWriteForRdmaReadRequired = false;
        private List<NamedAttribute> providerSpecificAttributes = List.of();
        private int maxIaInstances = Integer.MAX_VALUE;

        private Builder() {}

        /** @see ProviderAttributes#providerName() */
        public Builder providerName(String v) {
            providerName = v;
            return this;
        }

        /** @see ProviderAttributes#providerVersionMajor() */
        public Builder providerVersionMajor(int v) {
            providerVersionMajor = v;
            return this;
        }

        /** @see ProviderAttributes#providerVersionMinor() */
        public Builder providerVersionMinor(int v) {
            providerVersionMinor = v;
            return this;
        }

        /** @see ProviderAttributes#daplVersionMajor() */
        public Builder daplVersionMajor(int v) {
            daplVersionMajor = v;
            return this;
        }

        /** @see ProviderAttributes#daplVersionMinor() */
        public Builder daplVersionMinor(int v) {
            daplVersionMinor = v;
            return this;
        }

        /** @see ProviderAttributes#lmrMemTypesSupported() */
        public Builder lmrMemTypesSupported(Set<MemoryType> v) {
            lmrMemTypesSupported = v;
            return this;
        }

        /** @see ProviderAttributes#iovOwnershipOnReturn() */
        public Builder iovOwnershipOnReturn(IovOwnership v) {
            iovOwnershipOnReturn = v;
            return this;
        }

        /** @see ProviderAttributes#qosSupported() */
        public Builder qosSupported(Set<Qos> v) {
            qosSupported = v;
            return this;
        }

        /** @see ProviderAttributes#completionFlagsSupported() */
        public Builder completionFlagsSupported(Set<CompletionFlag> v) {
            completionFlagsSupported = v;
            return this;
        }

        /** @see ProviderAttributes#threadSafe() */
        public Builder threadSafe(boolean v) {
            threadSafe = v;
            return this;
        }

        /** @see ProviderAttributes#maxPrivateDataSize() */
        public Builder maxPrivateDataSize(int v) {
            maxPrivateDataSize = v;
            return this;
        }

        /** @see ProviderAttributes#supportsMultipath() */
        public Builder supportsMultipath(boolean v) {
            supportsMultipath = v;
            return this;
        }

        /** @see ProviderAttributes#epCreator() */
        public Builder epCreator(PspEpCreator v) {
            epCreator = v;
            return this;
        }

        /** @see ProviderAttributes#pzSupport() */
        public Builder pzSupport(PzSupport v) {
            pzSupport = v;
            return this;
        }

        /** @see ProviderAttributes#optimalBufferAlignment() */
        public Builder optimalBufferAlignment(int v) {
            optimalBufferAlignment = v;
            return this;
        }

        /** @see ProviderAttributes#evdStreamMerging() */
        public Builder evdStreamMerging(EvdStreamMerging v) {
            evdStreamMerging = v;
            return this;
        }

        /** @see ProviderAttributes#srqSupported() */
        public Builder srqSupported(boolean v) {
            srqSupported = v;
            return this;
        }

        /** @see ProviderAttributes#srqWatermarksSupported() */
        public Builder srqWatermarksSupported(int v) {
            srqWatermarksSupported = v;
            return this;
        }

        /** @see ProviderAttributes#srqEpPzDifferenceSupported() */
        public Builder srqEpPzDifferenceSupported(boolean v) {
            srqEpPzDifferenceSupported = v;
            return this;
        }

        /** @see ProviderAttributes#srqInfoSupported() */
        public Builder srqInfoSupported(int v) {
            srqInfoSupported = v;
            return this;
        }

        /** @see ProviderAttributes#epRecvInfoSupported() */
        public Builder epRecvInfoSupported(int v) {
            epRecvInfoSupported = v;
            return this;
        }

        /** @see ProviderAttributes#lmrSyncRequired() */
        public Builder lmrSyncRequired(boolean v) {
            lmrSyncRequired = v;
            return this;
        }

        /** @see ProviderAttributes#dtoAsyncReturnGuaranteed() */
        public Builder dtoAsyncReturnGuaranteed(boolean v) {
            dtoAsyncReturnGuaranteed = v;
            return this;
        }

        /** @see ProviderAttributes#rdmaWriteForRdmaReadRequired() */
        public Builder rdmaWriteForRdmaReadRequired(boolean v) {
            rdmaWriteForRdmaReadRequired = v;
            return this;
        }

        /** @see ProviderAttributes#providerSpecificAttributes() */
        public Builder providerSpecificAttributes(List<NamedAttribute> v) {
            providerSpecificAttributes = v;
            return this;
        }

        /** @see ProviderAttributes#maxIaInstances() */
        public Builder maxIaInstances(int v) {
            maxIaInstances = v;
            return this;
        }

        /**
         * The record.
         *
         * @throws DatException {@code DAT_INVALID_PARAMETER} as the record's constructor
         */
        public ProviderAttributes build() {
            return new ProviderAttributes(
                    providerName,
                    providerVersionMajor,
                    providerVersionMinor,
                    daplVersionMajor,
                    daplVersionMinor,
                    lmrMemTypesSupported,
                    iovOwnershipOnReturn,
                    qosSupported,
                    completionFlagsSupported,
                    threadSafe,
                    maxPrivateDataSize,
                    supportsMultipath,
                    epCreator,
                    pzSupport,
                    optimalBufferAlignment,
                    evdStreamMerging,
                    srqSupported,
                    srqWatermarksSupported,
                    srqEpPzDifferenceSupported,
                    srqInfoSupported,
                    epRecvInfoSupported,
                    lmrSyncRequired,
                    dtoAsyncReturnGuaranteed,
                    rdmaWriteForRdmaReadRequired,
                    providerSpecificAttributes,
                    maxIaInstances);
        }
    }
}

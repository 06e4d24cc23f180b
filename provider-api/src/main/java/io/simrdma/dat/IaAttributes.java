package io.simrdma.dat;

import java.net.SocketAddress;
import java.util.List;

/**
 * The attributes of an Interface Adapter ({@code DAT_IA_ATTR}), common to all open instances of
 * the IA, as {@link InterfaceAdapter#query()} returns them in {@link IaQueryResult}. The
 * {@code num_transport_attr} and {@code num_vendor_attr} fields of the C struct are the sizes of the
 * two lists. Unsigned C values ({@code DAT_UINT32}, {@code DAT_VADDR}) are carried in Java's signed
 * types bit for bit. Build with {@link #builder()}.
 *
 * <p>Thread safety: immutable.
 *
 * @param adapterName the IA name, as given to dat_ia_open
 * @param vendorName the vendor of the IA hardware
 * @param hardwareVersionMajor hardware major version
 * @param hardwareVersionMinor hardware minor version
 * @param firmwareVersionMajor firmware major version
 * @param firmwareVersionMinor firmware minor version
 * @param iaAddress the address of the IA ({@code ia_address_ptr}); what a peer passes to {@link Endpoint#connect}
 * @param maxEps most Endpoints, in all states
 * @param maxDtoPerEp most outstanding DTOs and RMR binds per EP and direction
 * @param maxRdmaReadPerEpIn most outstanding incoming RDMA Reads per connected EP
 * @param maxRdmaReadPerEpOut most outstanding outgoing RDMA Reads per connected EP
 * @param maxEvds most Event Dispatchers
 * @param maxEvdQlen longest EVD queue
 * @param maxIovSegmentsPerDto most IOV segments per DTO
 * @param maxLmrs most LMRs
 * @param maxLmrBlockSize largest contiguous block one LMR registers
 * @param maxLmrVirtualAddress highest valid virtual address of an LMR (unsigned 64 bits)
 * @param maxPzs most Protection Zones
 * @param maxMessageSize largest message ({@code max_mtu_size} in DAPL 1.0/1.1)
 * @param maxRdmaSize largest RDMA transfer
 * @param maxRmrs most RMRs
 * @param maxRmrTargetAddress highest valid RMR target address (unsigned 64 bits)
 * @param maxSrqs most SRQs
 * @param maxEpPerSrq most EPs per SRQ
 * @param maxRecvPerSrq most receive buffers per SRQ
 * @param maxIovSegmentsPerRdmaRead most IOV segments per RDMA Read
 * @param maxIovSegmentsPerRdmaWrite most IOV segments per RDMA Write
 * @param maxRdmaReadIn most outstanding incoming RDMA Reads for the IA
 * @param maxRdmaReadOut most outstanding outgoing RDMA Reads for the IA
 * @param maxRdmaReadPerEpInGuaranteed whether {@code maxRdmaReadPerEpIn} is guaranteed
 * @param maxRdmaReadPerEpOutGuaranteed whether {@code maxRdmaReadPerEpOut} is guaranteed
 * @param transportAttributes transport-specific attributes ({@code num_transport_attr} is the size)
 * @param vendorAttributes vendor-specific attributes ({@code num_vendor_attr} is the size)
 */
public record IaAttributes(
        String adapterName,
        String vendorName,
        int hardwareVersionMajor,
        int hardwareVersionMinor,
        int firmwareVersionMajor,
        int firmwareVersionMinor,
        SocketAddress iaAddress,
        int maxEps,
        int maxDtoPerEp,
        int maxRdmaReadPerEpIn,
        int maxRdmaReadPerEpOut,
        int maxEvds,
        int maxEvdQlen,
        int maxIovSegmentsPerDto,
        int maxLmrs,
        long maxLmrBlockSize,
        long maxLmrVirtualAddress,
        int maxPzs,
        long maxMessageSize,
        long maxRdmaSize,
        int maxRmrs,
        long maxRmrTargetAddress,
        int maxSrqs,
        int maxEpPerSrq,
        int maxRecvPerSrq,
        int maxIovSegmentsPerRdmaRead,
        int maxIovSegmentsPerRdmaWrite,
        int maxRdmaReadIn,
        int maxRdmaReadOut,
        boolean maxRdmaReadPerEpInGuaranteed,
        boolean maxRdmaReadPerEpOutGuaranteed,
        List<NamedAttribute> transportAttributes,
        List<NamedAttribute> vendorAttributes) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null component or a negative count
     *         or size
     */
    public IaAttributes {
        Checks.notNull(adapterName, "adapterName");
        Checks.notNull(vendorName, "vendorName");
        Checks.notNull(iaAddress, "iaAddress");
        Checks.nonNegative(maxEps, "maxEps");
        Checks.nonNegative(maxDtoPerEp, "maxDtoPerEp");
        Checks.nonNegative(maxRdmaReadPerEpIn, "maxRdmaReadPerEpIn");
        Checks.nonNegative(maxRdmaReadPerEpOut, "maxRdmaReadPerEpOut");
        Checks.nonNegative(maxEvds, "maxEvds");
        Checks.nonNegative(maxEvdQlen, "maxEvdQlen");
        Checks.nonNegative(maxIovSegmentsPerDto, "maxIovSegmentsPerDto");
        Checks.nonNegative(maxLmrs, "maxLmrs");
        Checks.nonNegative(maxLmrBlockSize, "maxLmrBlockSize");
        Checks.nonNegative(maxPzs, "maxPzs");
        Checks.nonNegative(maxMessageSize, "maxMessageSize");
        Checks.nonNegative(maxRdmaSize, "maxRdmaSize");
        Checks.nonNegative(maxRmrs, "maxRmrs");
        Checks.nonNegative(maxSrqs, "maxSrqs");
        Checks.nonNegative(maxEpPerSrq, "maxEpPerSrq");
        Checks.nonNegative(maxRecvPerSrq, "maxRecvPerSrq");
        Checks.nonNegative(maxIovSegmentsPerRdmaRead, "maxIovSegmentsPerRdmaRead");
        Checks.nonNegative(maxIovSegmentsPerRdmaWrite, "maxIovSegmentsPerRdmaWrite");
        Checks.nonNegative(maxRdmaReadIn, "maxRdmaReadIn");
        Checks.nonNegative(maxRdmaReadOut, "maxRdmaReadOut");
        transportAttributes = Checks.list(transportAttributes, "transportAttributes");
        vendorAttributes = Checks.list(vendorAttributes, "vendorAttributes");
    }

    /** A builder: every limit 0, no named attributes; adapter name and address must be set. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.adapterName = adapterName;
        b.vendorName = vendorName;
        b.hardwareVersionMajor = hardwareVersionMajor;
        b.hardwareVersionMinor = hardwareVersionMinor;
        b.firmwareVersionMajor = firmwareVersionMajor;
        b.firmwareVersionMinor = firmwareVersionMinor;
        b.iaAddress = iaAddress;
        b.maxEps = maxEps;
        b.maxDtoPerEp = maxDtoPerEp;
        b.maxRdmaReadPerEpIn = maxRdmaReadPerEpIn;
        b.maxRdmaReadPerEpOut = maxRdmaReadPerEpOut;
        b.maxEvds = maxEvds;
        b.maxEvdQlen = maxEvdQlen;
        b.maxIovSegmentsPerDto = maxIovSegmentsPerDto;
        b.maxLmrs = maxLmrs;
        b.maxLmrBlockSize = maxLmrBlockSize;
        b.maxLmrVirtualAddress = maxLmrVirtualAddress;
        b.maxPzs = maxPzs;
        b.maxMessageSize = maxMessageSize;
        b.maxRdmaSize = maxRdmaSize;
        b.maxRmrs = maxRmrs;
        b.maxRmrTargetAddress = maxRmrTargetAddress;
        b.maxSrqs = maxSrqs;
        b.maxEpPerSrq = maxEpPerSrq;
        b.maxRecvPerSrq = maxRecvPerSrq;
        b.maxIovSegmentsPerRdmaRead = maxIovSegmentsPerRdmaRead;
        b.maxIovSegmentsPerRdmaWrite = maxIovSegmentsPerRdmaWrite;
        b.maxRdmaReadIn = maxRdmaReadIn;
        b.maxRdmaReadOut = maxRdmaReadOut;
        b.maxRdmaReadPerEpInGuaranteed = maxRdmaReadPerEpInGuaranteed;
        b.maxRdmaReadPerEpOutGuaranteed = maxRdmaReadPerEpOutGuaranteed;
        b.transportAttributes = transportAttributes;
        b.vendorAttributes = vendorAttributes;
        return b;
    }

    /**
     * Builds {@link IaAttributes}; values are checked once, in {@link #build()}.
     *
     * <p>Thread safety: not thread-safe.
     */
    public static final class Builder {
        private String adapterName = null;
        private String vendorName = "";
        private int hardwareVersionMajor = 0;
        private int hardwareVersionMinor = 0;
        private int firmwareVersionMajor = 0;
        private int firmwareVersionMinor = 0;
        private SocketAddress iaAddress = null;
        private int maxEps = 0;
        private int maxDtoPerEp = 0;
        private int maxRdmaReadPerEpIn = 0;
        private int maxRdmaReadPerEpOut = 0;
        private int maxEvds = 0;
        private int maxEvdQlen = 0;
        private int maxIovSegmentsPerDto = 0;
        private int maxLmrs = 0;
        private long maxLmrBlockSize = 0;
        private long maxLmrVirtualAddress = 0;
        private int maxPzs = 0;
        private long maxMessageSize = 0;
        private long maxRdmaSize = 0;
        private int maxRmrs = 0;
        private long maxRmrTargetAddress = 0;
        private int maxSrqs = 0;
        private int maxEpPerSrq = 0;
        private int maxRecvPerSrq = 0;
        private int maxIovSegmentsPerRdmaRead = 0;
        private int maxIovSegmentsPerRdmaWrite = 0;
        private int maxRdmaReadIn = 0;
        private int maxRdmaReadOut = 0;
        private boolean maxRdmaReadPerEpInGuaranteed = false;
        private boolean maxRdmaReadPerEpOutGuaranteed = false;
        private List<NamedAttribute> transportAttributes = List.of();
        private List<NamedAttribute> vendorAttributes = List.of();

        private Builder() {}

        /** @see IaAttributes#adapterName() */
        public Builder adapterName(String v) {
            adapterName = v;
            return this;
        }

        /** @see IaAttributes#vendorName() */
        public Builder vendorName(String v) {
            vendorName = v;
            return this;
        }

        /** @see IaAttributes#hardwareVersionMajor() */
        public Builder hardwareVersionMajor(int v) {
            hardwareVersionMajor = v;
            return this;
        }

        /** @see IaAttributes#hardwareVersionMinor() */
        public Builder hardwareVersionMinor(int v) {
            hardwareVersionMinor = v;
            return this;
        }

        /** @see IaAttributes#firmwareVersionMajor() */
        public Builder firmwareVersionMajor(int v) {
            firmwareVersionMajor = v;
            return this;
        }

        /** @see IaAttributes#firmwareVersionMinor() */
        public Builder firmwareVersionMinor(int v) {
            firmwareVersionMinor = v;
            return this;
        }

        /** @see IaAttributes#iaAddress() */
        public Builder iaAddress(SocketAddress v) {
            iaAddress = v;
            return this;
        }

        /** @see IaAttributes#maxEps() */
        public Builder maxEps(int v) {
            maxEps = v;
            return this;
        }

        /** @see IaAttributes#maxDtoPerEp() */
        public Builder maxDtoPerEp(int v) {
            maxDtoPerEp = v;
            return this;
        }

        /** @see IaAttributes#maxRdmaReadPerEpIn() */
        public Builder maxRdmaReadPerEpIn(int v) {
            maxRdmaReadPerEpIn = v;
            return this;
        }

        /** @see IaAttributes#maxRdmaReadPerEpOut() */
        public Builder maxRdmaReadPerEpOut(int v) {
            maxRdmaReadPerEpOut = v;
            return this;
        }

        /** @see IaAttributes#maxEvds() */
        public Builder maxEvds(int v) {
            maxEvds = v;
            return this;
        }

        /** @see IaAttributes#maxEvdQlen() */
        public Builder maxEvdQlen(int v) {
            maxEvdQlen = v;
            return this;
        }

        /** @see IaAttributes#maxIovSegmentsPerDto() */
        public Builder maxIovSegmentsPerDto(int v) {
            maxIovSegmentsPerDto = v;
            return this;
        }

        /** @see IaAttributes#maxLmrs() */
        public Builder maxLmrs(int v) {
            maxLmrs = v;
            return this;
        }

        /** @see IaAttributes#maxLmrBlockSize() */
        public Builder maxLmrBlockSize(long v) {
            maxLmrBlockSize = v;
            return this;
        }

        /** @see IaAttributes#maxLmrVirtualAddress() */
        public Builder maxLmrVirtualAddress(long v) {
            maxLmrVirtualAddress = v;
            return this;
        }

        /** @see IaAttributes#maxPzs() */
        public Builder maxPzs(int v) {
            maxPzs = v;
            return this;
        }

        /** @see IaAttributes#maxMessageSize() */
        public Builder maxMessageSize(long v) {
            maxMessageSize = v;
            return this;
        }

        /** @see IaAttributes#maxRdmaSize() */
        public Builder maxRdmaSize(long v) {
            maxRdmaSize = v;
            return this;
        }

        /** @see IaAttributes#maxRmrs() */
        public Builder maxRmrs(int v) {
            maxRmrs = v;
            return this;
        }

        /** @see IaAttributes#maxRmrTargetAddress() */
        public Builder maxRmrTargetAddress(long v) {
            maxRmrTargetAddress = v;
            return this;
        }

        /** @see IaAttributes#maxSrqs() */
        public Builder maxSrqs(int v) {
            maxSrqs = v;
            return this;
        }

        /** @see IaAttributes#maxEpPerSrq() */
        public Builder maxEpPerSrq(int v) {
            maxEpPerSrq = v;
            return this;
        }

        /** @see IaAttributes#maxRecvPerSrq() */
        public Builder maxRecvPerSrq(int v) {
            maxRecvPerSrq = v;
            return this;
        }

        /** @see IaAttributes#maxIovSegmentsPerRdmaRead() */
        public Builder maxIovSegmentsPerRdmaRead(int v) {
            maxIovSegmentsPerRdmaRead = v;
            return this;
        }

        /** @see IaAttributes#maxIovSegmentsPerRdmaWrite() */
        public Builder maxIovSegmentsPerRdmaWrite(int v) {
            maxIovSegmentsPerRdmaWrite = v;
            return this;
        }

        /** @see IaAttributes#maxRdmaReadIn() */
        public Builder maxRdmaReadIn(int v) {
            maxRdmaReadIn = v;
            return this;
        }

        /** @see IaAttributes#maxRdmaReadOut() */
        public Builder maxRdmaReadOut(int v) {
            maxRdmaReadOut = v;
            return this;
        }

        /** @see IaAttributes#maxRdmaReadPerEpInGuaranteed() */
        public Builder maxRdmaReadPerEpInGuaranteed(boolean v) {
            maxRdmaReadPerEpInGuaranteed = v;
            return this;
        }

        /** @see IaAttributes#maxRdmaReadPerEpOutGuaranteed() */
        public Builder maxRdmaReadPerEpOutGuaranteed(boolean v) {
            maxRdmaReadPerEpOutGuaranteed = v;
            return this;
        }

        /** @see IaAttributes#transportAttributes() */
        public Builder transportAttributes(List<NamedAttribute> v) {
            transportAttributes = v;
            return this;
        }

        /** @see IaAttributes#vendorAttributes() */
        public Builder vendorAttributes(List<NamedAttribute> v) {
            vendorAttributes = v;
            return this;
        }

        /**
         * The record.
         *
         * @throws DatException {@code DAT_INVALID_PARAMETER} as the record's constructor
         */
        public IaAttributes build() {
            return new IaAttributes(
                    adapterName,
                    vendorName,
                    hardwareVersionMajor,
                    hardwareVersionMinor,
                    firmwareVersionMajor,
                    firmwareVersionMinor,
                    iaAddress,
                    maxEps,
                    maxDtoPerEp,
                    maxRdmaReadPerEpIn,
                    maxRdmaReadPerEpOut,
                    maxEvds,
                    maxEvdQlen,
                    maxIovSegmentsPerDto,
                    maxLmrs,
                    maxLmrBlockSize,
                    maxLmrVirtualAddress,
                    maxPzs,
                    maxMessageSize,
                    maxRdmaSize,
                    maxRmrs,
                    maxRmrTargetAddress,
                    maxSrqs,
                    maxEpPerSrq,
                    maxRecvPerSrq,
                    maxIovSegmentsPerRdmaRead,
                    maxIovSegmentsPerRdmaWrite,
                    maxRdmaReadIn,
                    maxRdmaReadOut,
                    maxRdmaReadPerEpInGuaranteed,
                    maxRdmaReadPerEpOutGuaranteed,
                    transportAttributes,
                    vendorAttributes);
        }
    }
}

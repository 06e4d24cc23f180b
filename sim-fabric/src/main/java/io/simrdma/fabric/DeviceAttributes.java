package io.simrdma.fabric;

/**
 * What a simulated HCA supports (struct ibv_device_attr, ibv_query_device(3)); the limits are
 * enforced: creating one object beyond a limit fails with ENOMEM, a size beyond a limit with
 * EINVAL. They come from the device's {@link DeviceProfile}; set them per device with
 * {@link DeviceConfig}.
 *
 * <p>Thread safety: immutable.
 *
 * @param fwVer           firmware version text
 * @param nodeGuid        node GUID
 * @param sysImageGuid    system image GUID
 * @param maxMrSize       largest MR in bytes
 * @param pageSizeCap     supported page sizes (bit mask)
 * @param vendorId        IEEE vendor id
 * @param vendorPartId    vendor part id
 * @param hwVer           hardware version
 * @param maxQp           queue pairs
 * @param maxQpWr         outstanding WRs per send or receive queue
 * @param maxSge          SGEs per send or receive WR
 * @param maxSgeRd        SGEs per RDMA READ WR
 * @param maxCq           completion queues
 * @param maxCqe          entries per CQ
 * @param maxMr           memory regions
 * @param maxPd           protection domains
 * @param maxQpRdAtom     RDMA READs and atomics a QP can have outstanding as responder (max_dest_rd_atomic)
 * @param maxResRdAtom    responder resources of the whole device
 * @param maxQpInitRdAtom RDMA READs and atomics a QP can have outstanding as initiator (max_rd_atomic)
 * @param maxMw           memory windows
 * @param maxSrq          shared receive queues
 * @param maxSrqWr        WRs per SRQ
 * @param maxSrqSge       SGEs per SRQ WR
 * @param maxPkeys        P_Key table size
 * @param maxInlineData   inline bytes per send WR
 * @param localCaAckDelay local CA ACK delay exponent
 * @param physPortCnt     physical ports
 * @param atomicCap       atomic operations support (NONE when the device has no atomics)
 * @param capabilities    device_cap_flags: what the device supports beyond the basics
 * @param numCompVectors  completion vectors a CQ may be created on (num_comp_vectors: libibverbs keeps
 *                        it in struct ibv_context, not in ibv_device_attr; reported here with the
 *                        other limits, and by {@link Device#numCompVectors()})
 */
public record DeviceAttributes(
        String fwVer,
        long nodeGuid,
        long sysImageGuid,
        long maxMrSize,
        long pageSizeCap,
        int vendorId,
        int vendorPartId,
        int hwVer,
        int maxQp,
        int maxQpWr,
        int maxSge,
        int maxSgeRd,
        int maxCq,
        int maxCqe,
        int maxMr,
        int maxPd,
        int maxQpRdAtom,
        int maxResRdAtom,
        int maxQpInitRdAtom,
        int maxMw,
        int maxSrq,
        int maxSrqWr,
        int maxSrqSge,
        int maxPkeys,
        int maxInlineData,
        int localCaAckDelay,
        int physPortCnt,
        AtomicCap atomicCap,
        java.util.Set<DeviceCapability> capabilities,
        int numCompVectors) {

    public DeviceAttributes {
        capabilities = java.util.Collections.unmodifiableSet(
                capabilities.isEmpty()
                        ? java.util.EnumSet.noneOf(DeviceCapability.class)
                        : java.util.EnumSet.copyOf(capabilities));
    }

    /** device_cap_flags as the C mask (the OR of {@link DeviceCapability#bit()}). */
    public int deviceCapFlags() {
        int m = 0;
        for (DeviceCapability c : capabilities) {
            m |= c.bit();
        }
        return m;
    }
}

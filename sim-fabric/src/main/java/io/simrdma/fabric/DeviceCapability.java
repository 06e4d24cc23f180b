package io.simrdma.fabric;

/**
 * Capability flags a device reports (enum ibv_device_cap_flags, ibv_query_device(3)
 * device_cap_flags), with their bit in the C mask. simrdma reports the ones it implements.
 *
 * <p>Thread safety: immutable.
 */
public enum DeviceCapability {
    /** IBV_DEVICE_PORT_ACTIVE_EVENT: PORT_ACTIVE is raised. */
    PORT_ACTIVE_EVENT(1 << 10),
    /** IBV_DEVICE_SYS_IMAGE_GUID: sys_image_guid is meaningful. */
    SYS_IMAGE_GUID(1 << 11),
    /** IBV_DEVICE_RC_RNR_NAK_GEN: the responder sends RNR NAKs. */
    RC_RNR_NAK_GEN(1 << 12),
    /** IBV_DEVICE_SRQ_RESIZE: ibv_modify_srq(3) can resize. */
    SRQ_RESIZE(1 << 13),
    /** IBV_DEVICE_N_NOTIFY_CQ: ibv_req_notify_cq(3) with solicited-only. */
    N_NOTIFY_CQ(1 << 14),
    /** IBV_DEVICE_MEM_WINDOW: type 1 memory windows. */
    MEM_WINDOW(1 << 17),
    /** IBV_DEVICE_MEM_MGT_EXTENSIONS: SEND with invalidate and local invalidation. */
    MEM_MGT_EXTENSIONS(1 << 21),
    /** IBV_DEVICE_MEM_WINDOW_TYPE_2B: type 2 windows bound to a QP. */
    MEM_WINDOW_TYPE_2B(1 << 24);

    private final int bit;

    DeviceCapability(int bit) {
        this.bit = bit;
    }

    /** The flag's bit in device_cap_flags. */
    public int bit() {
        return bit;
    }
}

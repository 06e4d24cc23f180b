package io.simrdma.dat;

/**
 * The minor return subtypes of a DAT call ({@code DAT_RETURN_SUBTYPE} in dat_error.h). The header
 * declares them as a plain C enum, so each value is its position (0 to 102); {@link #value()}
 * returns it and equals {@link #ordinal()}.
 *
 * <p>Each subtype qualifies one major type (the header's comment blocks); {@link #qualifies()} names
 * it, and {@link DatException} accepts a subtype only together with that type (or
 * {@link #NO_SUBTYPE} with any type). {@link #INVALID_RO_COOKIE} is an illumos addition (see
 * dat_ia_open, {@code RO_AWARE_} prefix).
 *
 * <p>Thread safety: immutable.
 */
public enum DatReturnSubtype {
    /** {@code DAT_NO_SUBTYPE} (0). */
    NO_SUBTYPE(null),
    /** {@code DAT_SUB_INTERRUPTED} (1). */
    SUB_INTERRUPTED(DatReturnType.ABORT),
    /** {@code DAT_RESOURCE_MEMORY} (2). */
    RESOURCE_MEMORY(DatReturnType.INSUFFICIENT_RESOURCES),
    /** {@code DAT_RESOURCE_DEVICE} (3). */
    RESOURCE_DEVICE(DatReturnType.INSUFFICIENT_RESOURCES),
    /** {@code DAT_RESOURCE_TEP} (4). */
    RESOURCE_TEP(DatReturnType.INSUFFICIENT_RESOURCES),
    /** {@code DAT_RESOURCE_TEVD} (5). */
    RESOURCE_TEVD(DatReturnType.INSUFFICIENT_RESOURCES),
    /** {@code DAT_RESOURCE_PROTECTION_DOMAIN} (6). */
    RESOURCE_PROTECTION_DOMAIN(DatReturnType.INSUFFICIENT_RESOURCES),
    /** {@code DAT_RESOURCE_MEMORY_REGION} (7). */
    RESOURCE_MEMORY_REGION(DatReturnType.INSUFFICIENT_RESOURCES),
    /** {@code DAT_RESOURCE_ERROR_HANDLER} (8). */
    RESOURCE_ERROR_HANDLER(DatReturnType.INSUFFICIENT_RESOURCES),
    /** {@code DAT_RESOURCE_CREDITS} (9). */
    RESOURCE_CREDITS(DatReturnType.INSUFFICIENT_RESOURCES),
    /** {@code DAT_RESOURCE_SRQ} (10). */
    RESOURCE_SRQ(DatReturnType.INSUFFICIENT_RESOURCES),
    /** {@code DAT_INVALID_HANDLE_IA} (11). */
    INVALID_HANDLE_IA(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE_EP} (12). */
    INVALID_HANDLE_EP(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE_LMR} (13). */
    INVALID_HANDLE_LMR(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE_RMR} (14). */
    INVALID_HANDLE_RMR(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE_PZ} (15). */
    INVALID_HANDLE_PZ(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE_PSP} (16). */
    INVALID_HANDLE_PSP(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE_RSP} (17). */
    INVALID_HANDLE_RSP(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE_CR} (18). */
    INVALID_HANDLE_CR(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE_CNO} (19). */
    INVALID_HANDLE_CNO(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE_EVD_CR} (20). */
    INVALID_HANDLE_EVD_CR(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE_EVD_REQUEST} (21). */
    INVALID_HANDLE_EVD_REQUEST(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE_EVD_RECV} (22). */
    INVALID_HANDLE_EVD_RECV(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE_EVD_CONN} (23). */
    INVALID_HANDLE_EVD_CONN(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE_EVD_ASYNC} (24). */
    INVALID_HANDLE_EVD_ASYNC(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE_SRQ} (25). */
    INVALID_HANDLE_SRQ(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE1} (26). */
    INVALID_HANDLE1(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE2} (27). */
    INVALID_HANDLE2(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE3} (28). */
    INVALID_HANDLE3(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE4} (29). */
    INVALID_HANDLE4(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE5} (30). */
    INVALID_HANDLE5(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE6} (31). */
    INVALID_HANDLE6(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE7} (32). */
    INVALID_HANDLE7(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE8} (33). */
    INVALID_HANDLE8(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE9} (34). */
    INVALID_HANDLE9(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_HANDLE10} (35). */
    INVALID_HANDLE10(DatReturnType.INVALID_HANDLE),
    /** {@code DAT_INVALID_ARG1} (36). */
    INVALID_ARG1(DatReturnType.INVALID_PARAMETER),
    /** {@code DAT_INVALID_ARG2} (37). */
    INVALID_ARG2(DatReturnType.INVALID_PARAMETER),
    /** {@code DAT_INVALID_ARG3} (38). */
    INVALID_ARG3(DatReturnType.INVALID_PARAMETER),
    /** {@code DAT_INVALID_ARG4} (39). */
    INVALID_ARG4(DatReturnType.INVALID_PARAMETER),
    /** {@code DAT_INVALID_ARG5} (40). */
    INVALID_ARG5(DatReturnType.INVALID_PARAMETER),
    /** {@code DAT_INVALID_ARG6} (41). */
    INVALID_ARG6(DatReturnType.INVALID_PARAMETER),
    /** {@code DAT_INVALID_ARG7} (42). */
    INVALID_ARG7(DatReturnType.INVALID_PARAMETER),
    /** {@code DAT_INVALID_ARG8} (43). */
    INVALID_ARG8(DatReturnType.INVALID_PARAMETER),
    /** {@code DAT_INVALID_ARG9} (44). */
    INVALID_ARG9(DatReturnType.INVALID_PARAMETER),
    /** {@code DAT_INVALID_ARG10} (45). */
    INVALID_ARG10(DatReturnType.INVALID_PARAMETER),
    /** {@code DAT_INVALID_STATE_EP_UNCONNECTED} (46). */
    INVALID_STATE_EP_UNCONNECTED(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EP_ACTCONNPENDING} (47). */
    INVALID_STATE_EP_ACTCONNPENDING(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EP_PASSCONNPENDING} (48). */
    INVALID_STATE_EP_PASSCONNPENDING(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EP_TENTCONNPENDING} (49). */
    INVALID_STATE_EP_TENTCONNPENDING(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EP_CONNECTED} (50). */
    INVALID_STATE_EP_CONNECTED(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EP_DISCONNECTED} (51). */
    INVALID_STATE_EP_DISCONNECTED(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EP_RESERVED} (52). */
    INVALID_STATE_EP_RESERVED(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EP_COMPLPENDING} (53). */
    INVALID_STATE_EP_COMPLPENDING(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EP_DISCPENDING} (54). */
    INVALID_STATE_EP_DISCPENDING(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EP_PROVIDERCONTROL} (55). */
    INVALID_STATE_EP_PROVIDERCONTROL(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EP_NOTREADY} (56). */
    INVALID_STATE_EP_NOTREADY(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EP_RECV_WATERMARK} (57). */
    INVALID_STATE_EP_RECV_WATERMARK(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EP_PZ} (58). */
    INVALID_STATE_EP_PZ(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EP_EVD_REQUEST} (59). */
    INVALID_STATE_EP_EVD_REQUEST(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EP_EVD_RECV} (60). */
    INVALID_STATE_EP_EVD_RECV(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EP_EVD_CONNECT} (61). */
    INVALID_STATE_EP_EVD_CONNECT(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EP_UNCONFIGURED} (62). */
    INVALID_STATE_EP_UNCONFIGURED(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EP_UNCONFRESERVED} (63). */
    INVALID_STATE_EP_UNCONFRESERVED(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EP_UNCONFPASSIVE} (64). */
    INVALID_STATE_EP_UNCONFPASSIVE(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EP_UNCONFTENTATIVE} (65). */
    INVALID_STATE_EP_UNCONFTENTATIVE(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_CNO_IN_USE} (66). */
    INVALID_STATE_CNO_IN_USE(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_CNO_DEAD} (67). */
    INVALID_STATE_CNO_DEAD(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EVD_OPEN} (68). */
    INVALID_STATE_EVD_OPEN(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EVD_ENABLED} (69). */
    INVALID_STATE_EVD_ENABLED(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EVD_DISABLED} (70). */
    INVALID_STATE_EVD_DISABLED(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EVD_WAITABLE} (71). */
    INVALID_STATE_EVD_WAITABLE(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EVD_UNWAITABLE} (72). */
    INVALID_STATE_EVD_UNWAITABLE(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EVD_IN_USE} (73). */
    INVALID_STATE_EVD_IN_USE(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EVD_CONFIG_NOTIFY} (74). */
    INVALID_STATE_EVD_CONFIG_NOTIFY(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EVD_CONFIG_SOLICITED} (75). */
    INVALID_STATE_EVD_CONFIG_SOLICITED(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EVD_CONFIG_THRESHOLD} (76). */
    INVALID_STATE_EVD_CONFIG_THRESHOLD(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EVD_WAITER} (77). */
    INVALID_STATE_EVD_WAITER(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_EVD_ASYNC} (78). */
    INVALID_STATE_EVD_ASYNC(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_IA_IN_USE} (79). */
    INVALID_STATE_IA_IN_USE(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_LMR_IN_USE} (80). */
    INVALID_STATE_LMR_IN_USE(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_LMR_FREE} (81). */
    INVALID_STATE_LMR_FREE(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_PZ_IN_USE} (82). */
    INVALID_STATE_PZ_IN_USE(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_PZ_FREE} (83). */
    INVALID_STATE_PZ_FREE(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_SRQ_OPERATIONAL} (84). */
    INVALID_STATE_SRQ_OPERATIONAL(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_SRQ_ERROR} (85). */
    INVALID_STATE_SRQ_ERROR(DatReturnType.INVALID_STATE),
    /** {@code DAT_INVALID_STATE_SRQ_IN_USE} (86). */
    INVALID_STATE_SRQ_IN_USE(DatReturnType.INVALID_STATE),
    /** {@code DAT_PRIVILEGES_READ} (87). */
    PRIVILEGES_READ(DatReturnType.PRIVILEGES_VIOLATION),
    /** {@code DAT_PRIVILEGES_WRITE} (88). */
    PRIVILEGES_WRITE(DatReturnType.PRIVILEGES_VIOLATION),
    /** {@code DAT_PRIVILEGES_RDMA_READ} (89). */
    PRIVILEGES_RDMA_READ(DatReturnType.PRIVILEGES_VIOLATION),
    /** {@code DAT_PRIVILEGES_RDMA_WRITE} (90). */
    PRIVILEGES_RDMA_WRITE(DatReturnType.PRIVILEGES_VIOLATION),
    /** {@code DAT_PROTECTION_READ} (91). */
    PROTECTION_READ(DatReturnType.PROTECTION_VIOLATION),
    /** {@code DAT_PROTECTION_WRITE} (92). */
    PROTECTION_WRITE(DatReturnType.PROTECTION_VIOLATION),
    /** {@code DAT_PROTECTION_RDMA_READ} (93). */
    PROTECTION_RDMA_READ(DatReturnType.PROTECTION_VIOLATION),
    /** {@code DAT_PROTECTION_RDMA_WRITE} (94). */
    PROTECTION_RDMA_WRITE(DatReturnType.PROTECTION_VIOLATION),
    /** {@code DAT_INVALID_ADDRESS_UNSUPPORTED} (95). */
    INVALID_ADDRESS_UNSUPPORTED(DatReturnType.INVALID_ADDRESS),
    /** {@code DAT_INVALID_ADDRESS_UNREACHABLE} (96). */
    INVALID_ADDRESS_UNREACHABLE(DatReturnType.INVALID_ADDRESS),
    /** {@code DAT_INVALID_ADDRESS_MALFORMED} (97). */
    INVALID_ADDRESS_MALFORMED(DatReturnType.INVALID_ADDRESS),
    /** {@code DAT_NAME_NOT_REGISTERED} (98). */
    NAME_NOT_REGISTERED(DatReturnType.PROVIDER_NOT_FOUND),
    /** {@code DAT_MAJOR_NOT_FOUND} (99). */
    MAJOR_NOT_FOUND(DatReturnType.PROVIDER_NOT_FOUND),
    /** {@code DAT_MINOR_NOT_FOUND} (100). */
    MINOR_NOT_FOUND(DatReturnType.PROVIDER_NOT_FOUND),
    /** {@code DAT_THREAD_SAFETY_NOT_FOUND} (101). */
    THREAD_SAFETY_NOT_FOUND(DatReturnType.PROVIDER_NOT_FOUND),
    /** {@code DAT_INVALID_RO_COOKIE} (102), Sun/illumos addition. */
    INVALID_RO_COOKIE(DatReturnType.INVALID_PARAMETER);

    private static final DatReturnSubtype[] VALUES = values();

    private final DatReturnType qualifies;
    private final String cName;

    DatReturnSubtype(DatReturnType qualifies) {
        this.qualifies = qualifies;
        this.cName = "DAT_" + name();
    }

    /** The subtype bits (bits 15-0 of a {@code DAT_RETURN}); the header position. */
    public int value() {
        return ordinal();
    }

    /** The C name, for example {@code "DAT_INVALID_STATE_EP_UNCONNECTED"}. */
    public String cName() {
        return cName;
    }

    /**
     * strerror's minor message: the C name, or the empty string for {@link #NO_SUBTYPE}.
     */
    public String message() {
        return this == NO_SUBTYPE ? "" : cName;
    }

    /** The major type this subtype qualifies; {@code null} for {@link #NO_SUBTYPE}, which goes with any. */
    public DatReturnType qualifies() {
        return qualifies;
    }

    /** Whether this subtype may accompany {@code type}. */
    public boolean canQualify(DatReturnType type) {
        return qualifies == null || qualifies == type;
    }

    /**
     * The subtype of a full {@code DAT_RETURN} value ({@code DAT_GET_SUBTYPE}).
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} if the subtype bits name no subtype
     */
    public static DatReturnSubtype fromCode(int code) {
        int index = code & Dat.SUBTYPE_MASK;
        if (index < VALUES.length) {
            return VALUES[index];
        }
        throw new DatException(
                DatReturnType.INVALID_PARAMETER,
                NO_SUBTYPE,
                String.format("undefined DAT_RETURN subtype bits 0x%04X", index));
    }
}

package io.simrdma.dat;

/**
 * The major return types of a DAT call ({@code DAT_RETURN_TYPE} in dat_error.h), with the
 * numeric values of the header (bits 29-16 of a {@code DAT_RETURN}).
 *
 * <p>A failed call throws a {@link DatException} carrying one of these (never {@link #SUCCESS}).
 * {@link #TIMEOUT_EXPIRED} and {@link #QUEUE_EMPTY} also appear as values in
 * {@link EvdWaitResult} and {@link CnoWaitResult}, because a timed-out wait is a normal outcome.
 *
 * <p>Header alias: {@code DAT_NAME_NOT_FOUND} (DAT 1.0) is {@link #PROVIDER_NOT_FOUND}.
 * Note on {@link #PRIVILEGES_VIOLATION} and {@link #PROTECTION_VIOLATION}: the header comments are
 * swapped relative to the names; this enum follows the man pages (protection = Protection Zone
 * mismatch, privileges = missing privilege or invalid LMR).
 *
 * <p>Thread safety: immutable.
 */
public enum DatReturnType {
    /** {@code DAT_SUCCESS}. */
    SUCCESS(0x00000000, "The operation was successful."),
    /** {@code DAT_ABORT}. */
    ABORT(0x00010000, "The operation was aborted because IA was closed or EVD was destroyed."),
    /** {@code DAT_CONN_QUAL_IN_USE}. */
    CONN_QUAL_IN_USE(0x00020000, "The specified Connection Qualifier was in use."),
    /** {@code DAT_INSUFFICIENT_RESOURCES}. */
    INSUFFICIENT_RESOURCES(0x00030000, "The operation failed due to resource limitations."),
    /** {@code DAT_INTERNAL_ERROR}. */
    INTERNAL_ERROR(0x00040000, "Provider internal error."),
    /** {@code DAT_INVALID_HANDLE}. */
    INVALID_HANDLE(0x00050000, "One of the DAT handles was invalid."),
    /** {@code DAT_INVALID_PARAMETER}. */
    INVALID_PARAMETER(0x00060000, "One of the parameters was invalid."),
    /** {@code DAT_INVALID_STATE}. */
    INVALID_STATE(0x00070000, "One of the parameters was invalid for this operation (object in wrong state)."),
    /** {@code DAT_LENGTH_ERROR}. */
    LENGTH_ERROR(0x00080000, "The receiving or local buffer was too small for the data."),
    /** {@code DAT_MODEL_NOT_SUPPORTED}. */
    MODEL_NOT_SUPPORTED(0x00090000, "The requested Model was not supported by the Provider."),
    /** {@code DAT_PROVIDER_NOT_FOUND} (alias {@code DAT_NAME_NOT_FOUND}). */
    PROVIDER_NOT_FOUND(0x000A0000, "The provider name or specified attributes are not found in the registry."),
    /** {@code DAT_PRIVILEGES_VIOLATION}: a missing memory privilege or an invalid LMR. */
    PRIVILEGES_VIOLATION(0x000B0000, "Privileges violation for local or remote memory access."),
    /** {@code DAT_PROTECTION_VIOLATION}: a Protection Zone mismatch. */
    PROTECTION_VIOLATION(
            0x000C0000, "Protection violation for local or remote memory access (Protection Zone mismatch)."),
    /** {@code DAT_QUEUE_EMPTY}. */
    QUEUE_EMPTY(0x000D0000, "The queue was empty, or the operation timed out without a notification."),
    /** {@code DAT_QUEUE_FULL}. */
    QUEUE_FULL(0x000E0000, "The Event Dispatcher queue is full."),
    /** {@code DAT_TIMEOUT_EXPIRED}. */
    TIMEOUT_EXPIRED(0x000F0000, "The operation timed out."),
    /** {@code DAT_PROVIDER_ALREADY_REGISTERED}. */
    PROVIDER_ALREADY_REGISTERED(0x00100000, "The provider name was already registered."),
    /** {@code DAT_PROVIDER_IN_USE}. */
    PROVIDER_IN_USE(0x00110000, "The provider is in use and cannot be closed at this time."),
    /** {@code DAT_INVALID_ADDRESS}. */
    INVALID_ADDRESS(0x00120000, "The requested remote address is not valid or not reachable."),
    /** {@code DAT_INTERRUPTED_CALL}: a wait was interrupted (in Java: {@link Thread#interrupt()}). */
    INTERRUPTED_CALL(0x00130000, "The wait has been interrupted."),
    /** {@code DAT_CONN_QUAL_UNAVAILABLE}. */
    CONN_QUAL_UNAVAILABLE(0x00140000, "No Connection Qualifiers are available."),
    /**
     * {@code DAT_NOT_IMPLEMENTED}: listed because the header defines it; no part of simrdma
     * returns it.
     */
    NOT_IMPLEMENTED(0x0FFF0000, "The Provider does not support the operation yet.");

    private static final DatReturnType[] BY_INDEX = new DatReturnType[0x15];

    static {
        for (DatReturnType t : values()) {
            int index = t.value >>> 16;
            if (index < BY_INDEX.length) {
                BY_INDEX[index] = t;
            }
        }
    }

    private final int value;
    private final String meaning;
    private final String cName;

    DatReturnType(int value, String meaning) {
        this.value = value;
        this.meaning = meaning;
        this.cName = "DAT_" + name();
    }

    /** The type bits as in the header, for example {@code 0x00070000} for {@link #INVALID_STATE}. */
    public int value() {
        return value;
    }

    /** The C name, for example {@code "DAT_INVALID_STATE"}; this is strerror's major message. */
    public String cName() {
        return cName;
    }

    /** What the type means (the header comment, paraphrased). */
    public String meaning() {
        return meaning;
    }

    /**
     * The major type of a full {@code DAT_RETURN} value ({@code DAT_GET_TYPE}).
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} if the type bits name no type
     */
    public static DatReturnType fromCode(int code) {
        int index = (code & Dat.TYPE_MASK) >>> 16;
        if (index < BY_INDEX.length) {
            return BY_INDEX[index];
        }
        if (index == NOT_IMPLEMENTED.value >>> 16) {
            return NOT_IMPLEMENTED;
        }
        throw new DatException(
                INVALID_PARAMETER,
                DatReturnSubtype.NO_SUBTYPE,
                String.format("undefined DAT_RETURN type bits 0x%08X", code & Dat.TYPE_MASK));
    }
}

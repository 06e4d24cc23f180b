package io.simrdma.dat;

/**
 * The one exception every DAT call throws when it fails: it carries the DAT return type and subtype
 * the man page names, and its message is {@link Dat#strerror(int) strerror}'s text (major message,
 * then the minor message if there is a subtype), followed by an optional detail.
 *
 * <p>Example message: {@code "DAT_INVALID_STATE DAT_INVALID_STATE_EP_UNCONNECTED: ep 3 is not connected"}.
 *
 * <p>Outcomes that are normal are values, not exceptions: an empty EVD on dequeue is an empty
 * {@link java.util.Optional}, a timed-out wait is an {@link EvdWaitResult} or {@link CnoWaitResult}.
 *
 * <p>Numeric code: {@link #code()} is {@code DAT_CLASS_ERROR | type | subtype}, the value a C
 * provider built with dat_error.h's {@code DAT_ERROR(type, subtype)} returns. The header's type
 * values themselves do not include the class bit; compare types with {@link #type()} (the Java
 * counterpart of {@code DAT_GET_TYPE}).
 *
 * <p>Thread safety: immutable.
 */
public final class DatException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final DatReturnType type;
    private final DatReturnSubtype subtype;
    private final String detail;

    /** A failure of {@code type} with no subtype and no detail. */
    public DatException(DatReturnType type) {
        this(type, DatReturnSubtype.NO_SUBTYPE, null, null);
    }

    /** A failure of {@code type} with no subtype; {@code detail} (may be null) says what failed. */
    public DatException(DatReturnType type, String detail) {
        this(type, DatReturnSubtype.NO_SUBTYPE, detail, null);
    }

    /** A failure of {@code type} qualified by {@code subtype}. */
    public DatException(DatReturnType type, DatReturnSubtype subtype) {
        this(type, subtype, null, null);
    }

    /** A failure of {@code type} qualified by {@code subtype}; {@code detail} may be null. */
    public DatException(DatReturnType type, DatReturnSubtype subtype, String detail) {
        this(type, subtype, detail, null);
    }

    /**
     * A failure of {@code type} qualified by {@code subtype}, caused by {@code cause}.
     *
     * @throws IllegalArgumentException if {@code type} is {@link DatReturnType#SUCCESS} (a success
     *         is not a failure) or {@code subtype} does not qualify {@code type}; both are mistakes
     *         of the code building the exception, not of the DAT consumer
     */
    public DatException(DatReturnType type, DatReturnSubtype subtype, String detail, Throwable cause) {
        super(message(type, subtype, detail), cause);
        this.type = type;
        this.subtype = subtype;
        this.detail = detail;
    }

    private static String message(DatReturnType type, DatReturnSubtype subtype, String detail) {
        if (type == null || subtype == null) {
            throw new IllegalArgumentException("type and subtype must not be null (use NO_SUBTYPE)");
        }
        if (type == DatReturnType.SUCCESS) {
            throw new IllegalArgumentException("DAT_SUCCESS is not a failure");
        }
        if (!subtype.canQualify(type)) {
            throw new IllegalArgumentException(
                    subtype.cName() + " qualifies " + subtype.qualifies().cName() + ", not " + type.cName());
        }
        DatErrorText text = Dat.strerror(type, subtype);
        StringBuilder sb = new StringBuilder(text.majorMessage());
        if (!text.minorMessage().isEmpty()) {
            sb.append(' ').append(text.minorMessage());
        }
        if (detail != null && !detail.isEmpty()) {
            sb.append(": ").append(detail);
        }
        return sb.toString();
    }

    /** Shorthand for {@code DAT_INVALID_PARAMETER} with a detail. */
    public static DatException invalidParameter(String detail) {
        return new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, detail, null);
    }

    /** The major return type. Never {@link DatReturnType#SUCCESS}. */
    public DatReturnType type() {
        return type;
    }

    /** The minor return subtype; {@link DatReturnSubtype#NO_SUBTYPE} if none. */
    public DatReturnSubtype subtype() {
        return subtype;
    }

    /** What failed, in words, or {@code null}. Not part of strerror's text. */
    public String detail() {
        return detail;
    }

    /** The full {@code DAT_RETURN} value: {@code DAT_CLASS_ERROR | type | subtype}. */
    public int code() {
        return Dat.CLASS_ERROR | type.value() | subtype.value();
    }

    /** strerror's two messages for this failure. Corresponds to {@code dat_strerror()}. */
    public DatErrorText errorText() {
        return Dat.strerror(type, subtype);
    }
}

package io.simrdma.dat;

/**
 * The two strings {@code dat_strerror()} returns: the major message (the string-converted
 * {@code DAT_TYPE_STATUS}, for example {@code "DAT_INVALID_STATE"}) and the minor message (the
 * string-converted {@code DAT_SUBTYPE_STATUS}, for example {@code "DAT_INVALID_STATE_EP_UNCONNECTED"},
 * or the empty string when there is no subtype).
 *
 * <p>Thread safety: immutable.
 *
 * @param majorMessage the major message, never null
 * @param minorMessage the minor message, never null (empty for {@code DAT_NO_SUBTYPE})
 * @see Dat#strerror(int)
 */
public record DatErrorText(String majorMessage, String minorMessage) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} if either message is null
     */
    public DatErrorText {
        if (majorMessage == null || minorMessage == null) {
            throw DatException.invalidParameter("messages must not be null");
        }
    }
}

package io.simrdma.fabric;

/**
 * A post of a list of work requests stopped at the first one that could not be posted
 * (ibv_post_send(3), ibv_post_recv(3): the failing WR is returned through bad_wr; the WRs
 * before it were posted, it and the ones after it were not).
 *
 * <p>Thread safety: immutable once thrown.
 */
public final class PostException extends VerbsException {

    private static final long serialVersionUID = 1L;

    private final transient Object badWr;
    private final int badIndex;

    public PostException(Errno errno, String message, Object badWr, int badIndex) {
        super(errno, message + " (work request #" + badIndex + " of the list)");
        this.badWr = badWr;
        this.badIndex = badIndex;
    }

    /** The work request that failed: a {@link SendWr} or a {@link RecvWr}. */
    public Object badWr() {
        return badWr;
    }

    /** Position of the failing work request in the posted list, from 0; that many were posted. */
    public int badIndex() {
        return badIndex;
    }
}

package io.simrdma.fabric;

/**
 * A verbs or CM call was refused: the errno the C call would have returned, and why.
 * Misuse of the API is reported this way; what happens on the wire (access errors, retries
 * exhausted, flushes) is reported as completion statuses and async events instead.
 *
 * <p>Thread safety: immutable once thrown.
 */
public class VerbsException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final Errno errno;

    public VerbsException(Errno errno, String message) {
        super(errno.name() + ": " + message);
        this.errno = errno;
    }

    /** The errno of the failure. */
    public Errno errno() {
        return errno;
    }

    /** An EINVAL failure with {@code message}. */
    public static VerbsException invalid(String message) {
        return new VerbsException(Errno.EINVAL, message);
    }

    /**
     * An ENOENT failure: {@code message} names an object that was already destroyed, deallocated or
     * deregistered. Every call on such a stale handle fails this way, as the kernel's uverbs layer
     * refuses a handle it no longer knows.
     */
    public static VerbsException stale(String message) {
        return new VerbsException(Errno.ENOENT, message);
    }

    /** An EBUSY failure with {@code message}. */
    public static VerbsException busy(String message) {
        return new VerbsException(Errno.EBUSY, message);
    }

    /** Throws EINVAL "{@code name v} not in {@code lo..hi}" unless {@code lo <= v <= hi}. */
    public static void checkRange(String name, int v, int lo, int hi) {
        if (v < lo || v > hi) {
            throw invalid(name + " " + v + " not in " + lo + ".." + hi);
        }
    }
}

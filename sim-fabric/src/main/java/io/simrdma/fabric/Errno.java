package io.simrdma.fabric;

/**
 * The errno values verbs and CM calls fail with, as libibverbs and librdmacm report them
 * (Linux numbering).
 *
 * <p>Thread safety: immutable.
 */
public enum Errno {
    EPERM(1, "Operation not permitted"),
    ENOENT(2, "No such file or directory"),
    EINTR(4, "Interrupted system call"),
    EIO(5, "Input/output error"),
    E2BIG(7, "Argument list too long"),
    EAGAIN(11, "Resource temporarily unavailable"),
    ENOMEM(12, "Cannot allocate memory"),
    EACCES(13, "Permission denied"),
    EFAULT(14, "Bad address"),
    EBUSY(16, "Device or resource busy"),
    EEXIST(17, "File exists"),
    ENODEV(19, "No such device"),
    EINVAL(22, "Invalid argument"),
    ENOSPC(28, "No space left on device"),
    ENODATA(61, "No data available"),
    EPROTO(71, "Protocol error"),
    EOVERFLOW(75, "Value too large for defined data type"),
    EOPNOTSUPP(95, "Operation not supported"),
    EADDRINUSE(98, "Address already in use"),
    EADDRNOTAVAIL(99, "Cannot assign requested address"),
    ENETUNREACH(101, "Network is unreachable"),
    ECONNABORTED(103, "Software caused connection abort"),
    ECONNRESET(104, "Connection reset by peer"),
    EISCONN(106, "Transport endpoint is already connected"),
    ENOTCONN(107, "Transport endpoint is not connected"),
    ETIMEDOUT(110, "Connection timed out"),
    ECONNREFUSED(111, "Connection refused"),
    EHOSTUNREACH(113, "No route to host"),
    EALREADY(114, "Operation already in progress"),
    EINPROGRESS(115, "Operation now in progress");

    private final int value;
    private final String text;

    Errno(int value, String text) {
        this.value = value;
        this.text = text;
    }

    /** The Linux errno number. */
    public int value() {
        return value;
    }

    /** What strerror(3) says for it. */
    public String text() {
        return text;
    }
}

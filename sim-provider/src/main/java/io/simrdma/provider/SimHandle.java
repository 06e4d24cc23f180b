package io.simrdma.provider;

import io.simrdma.dat.DatException;
import io.simrdma.dat.DatHandle;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.HandleType;

/**
 * What every sim provider object shares: its handle type, the consumer context
 * (dat_set_consumer_context(3DAT), dat_get_consumer_context(3DAT)), its IA, and whether it was
 * freed. A freed handle, a handle of another IA or of another provider is an invalid handle.
 *
 * <p>Thread safety: the context and the freed flag are volatile.
 */
abstract class SimHandle implements DatHandle {

    final SimIa ia;
    private final HandleType type;
    private volatile Object context;
    volatile boolean freed;
    /** Where the object was created, when {@link SimProvider#recordCreationSites} was on; else null. */
    Throwable createdAt;

    SimHandle(SimIa ia, HandleType type) {
        this.ia = ia;
        this.type = type;
    }

    @Override
    public HandleType handleType() {
        checkHandle();
        return type;
    }

    @Override
    public Object consumerContext() {
        checkHandle();
        return context;
    }

    @Override
    public void setConsumerContext(Object c) {
        checkHandle();
        this.context = c;
    }

    /** The subtype of DAT_INVALID_HANDLE that names this kind of handle. */
    abstract DatReturnSubtype invalidHandleSubtype();

    /** Releases the object without the checks of its free (dat_ia_close(3DAT) abrupt). */
    abstract void destroy();

    /** @throws DatException DAT_INVALID_HANDLE if freed or its IA is closed */
    final void checkHandle() {
        if (freed || (ia != null && ia != this && ia.closed)) {
            throw new DatException(
                    DatReturnType.INVALID_HANDLE, invalidHandleSubtype(), type + " handle was freed or its IA closed");
        }
    }

    /**
     * Casts a consumer-supplied handle, checking that it is a live handle of this provider and of
     * {@code ia}.
     *
     * @throws DatException DAT_INVALID_HANDLE with {@code subtype} otherwise (null included)
     */
    static <T extends SimHandle> T check(Object handle, Class<T> cls, SimIa ia, DatReturnSubtype subtype) {
        if (!cls.isInstance(handle)) {
            throw new DatException(
                    DatReturnType.INVALID_HANDLE,
                    subtype,
                    handle == null ? "null handle" : "not a handle of the sim provider's " + cls.getSimpleName());
        }
        T h = cls.cast(handle);
        if (h.freed || (ia != null && h.ia != ia) || (h.ia != null && h.ia.closed)) {
            throw new DatException(
                    DatReturnType.INVALID_HANDLE,
                    subtype,
                    h.freed ? "handle was freed" : "handle belongs to another IA");
        }
        return h;
    }

    /** Like {@link #check} but null is allowed and returned as null. */
    static <T extends SimHandle> T checkOptional(Object handle, Class<T> cls, SimIa ia, DatReturnSubtype subtype) {
        return handle == null ? null : check(handle, cls, ia, subtype);
    }

    /** @throws DatException DAT_INVALID_PARAMETER naming {@code name} unless {@code lo <= v <= hi} */
    static void range(long v, long lo, long hi, String name) {
        if (v < lo || v > hi) {
            throw DatException.invalidParameter(name + " " + v + " not in " + lo + ".." + hi);
        }
    }

    static DatException invalidState(DatReturnSubtype subtype, String detail) {
        return new DatException(DatReturnType.INVALID_STATE, subtype, detail);
    }

    static DatException insufficient(DatReturnSubtype subtype, String detail) {
        return new DatException(DatReturnType.INSUFFICIENT_RESOURCES, subtype, detail);
    }
}

package io.simrdma.dat;

/**
 * A DAT object the consumer destroys with a {@code dat_*_free()} call. {@link #close()} frees it, so
 * such objects can be used in try-with-resources.
 *
 * <p>Thread safety: see {@link DatHandle}.
 */
public interface FreeableHandle extends DatHandle, AutoCloseable {

    /**
     * Destroys the object. Corresponds to the object's {@code dat_*_free()}; each sub-interface
     * names the function and the return types it can throw.
     *
     * @throws DatException as the object's free function says
     */
    void free();

    /** Same as {@link #free()}. */
    @Override
    default void close() {
        free();
    }
}

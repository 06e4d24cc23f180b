package io.simrdma.dat;

/**
 * What dat_ia_open does about the IA's asynchronous EVD ({@code async_evd_min_qlen} and the INOUT
 * {@code async_evd_handle}): {@link #create(int)} one ({@code DAT_HANDLE_NULL} passed in), use an
 * existing one of the same provider ({@link #use(EventDispatcher)}), or none because one exists
 * elsewhere on the host ({@link #existsElsewhere()}, {@code DAT_EVD_ASYNC_EXISTS}).
 *
 * <p>Thread safety: immutable.
 */
public sealed interface AsyncEvdRequest
        permits AsyncEvdRequest.Create, AsyncEvdRequest.Use, AsyncEvdRequest.ExistsElsewhere {

    /** Have the provider create the asynchronous EVD with a queue of at least {@code minQlen} events. */
    static AsyncEvdRequest create(int minQlen) {
        return new Create(minQlen);
    }

    /** Send asynchronous events to {@code evd}, an asynchronous EVD of the same provider. */
    static AsyncEvdRequest use(EventDispatcher evd) {
        return new Use(evd);
    }

    /** {@code DAT_EVD_ASYNC_EXISTS}: an asynchronous EVD exists elsewhere; create none. */
    static AsyncEvdRequest existsElsewhere() {
        return ExistsElsewhere.INSTANCE;
    }

    /**
     * The provider creates the asynchronous EVD (without a CNO); it is destroyed by dat_ia_close.
     *
     * @param minQlen the least queue length
     */
    record Create(int minQlen) implements AsyncEvdRequest {

        /**
         * @throws DatException {@code DAT_INVALID_PARAMETER} if {@code minQlen} is negative
         */
        public Create {
            Checks.nonNegative(minQlen, "async_evd_min_qlen");
        }
    }

    /**
     * The consumer's asynchronous EVD; the provider creates none, and dat_ia_close does not destroy
     * it. An EVD the provider finds invalid fails the open with {@code DAT_INVALID_HANDLE}.
     *
     * @param evd the EVD
     */
    record Use(EventDispatcher evd) implements AsyncEvdRequest {

        /**
         * @throws DatException {@code DAT_INVALID_PARAMETER} if {@code evd} is null
         */
        public Use {
            Checks.notNull(evd, "async EVD");
        }
    }

    /** {@code DAT_EVD_ASYNC_EXISTS}. */
    enum ExistsElsewhere implements AsyncEvdRequest {
        /** The only value. */
        INSTANCE
    }
}

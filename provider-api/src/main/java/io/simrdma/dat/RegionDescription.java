package io.simrdma.dat;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The memory an LMR registers ({@code DAT_REGION_DESCRIPTION} together with its
 * {@code DAT_MEM_TYPE} and length, as dat_lmr_create takes them): one of {@link Virtual},
 * {@link Lmr} or {@link SharedVirtual}.
 *
 * <p>Ownership: the consumer owns every {@link ByteBuffer} given here. The provider registers it in
 * place, never copies it, and keeps a reference until the LMR is freed. The region is the buffer's
 * content between its position and its limit at the time of dat_lmr_create; changing the buffer's
 * position or limit afterwards does not change the region. Heap and direct buffers are both
 * accepted.
 *
 * <p>Thread safety: the records are immutable; the buffers they refer to are the consumer's.
 */
public sealed interface RegionDescription permits RegionDescription.Virtual, RegionDescription.Lmr,
        RegionDescription.SharedVirtual {

    /** The memory type of this description. */
    MemoryType memType();

    /**
     * Consumer memory ({@code DAT_MEM_TYPE_VIRTUAL}): the bytes of {@code buffer} from its position
     * to its limit; the length is {@code buffer.remaining()}.
     *
     * @param buffer the consumer's buffer, heap or direct; not null
     */
    record Virtual(ByteBuffer buffer) implements RegionDescription {

        /**
         * @throws DatException {@code DAT_INVALID_PARAMETER} if {@code buffer} is null
         */
        public Virtual {
            Checks.notNull(buffer, "region buffer");
        }

        @Override
        public MemoryType memType() {
            return MemoryType.VIRTUAL;
        }

        /** The region length, {@code buffer.remaining()} at the time of the call. */
        public long length() {
            return buffer.remaining();
        }

        /** Equal if both name the same buffer object (not the same content). */
        @Override
        public boolean equals(Object o) {
            return o instanceof Virtual v && buffer == v.buffer;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(buffer);
        }
    }

    /**
     * The memory of an existing LMR ({@code DAT_MEM_TYPE_LMR}), for example to register it again in
     * another PZ or with other privileges; the C length parameter is ignored for this type.
     *
     * @param lmr the existing LMR; not null
     */
    record Lmr(LocalMemoryRegion lmr) implements RegionDescription {

        /**
         * @throws DatException {@code DAT_INVALID_PARAMETER} if {@code lmr} is null
         */
        public Lmr {
            Checks.notNull(lmr, "region LMR");
        }

        @Override
        public MemoryType memType() {
            return MemoryType.LMR;
        }
    }

    /**
     * Shared memory ({@code DAT_MEM_TYPE_SHARED_VIRTUAL}, uDAT only): {@code buffer} as in
     * {@link Virtual}, identified among the consumers sharing it by a {@link Dat#LMR_COOKIE_SIZE}-byte
     * cookie ({@code DAT_LMR_COOKIE}), compared as 40 bytes, never as a string.
     *
     * @param cookie the shared memory identifier, exactly 40 bytes; copied in and out
     * @param buffer the consumer's buffer; not null
     */
    record SharedVirtual(byte[] cookie, ByteBuffer buffer) implements RegionDescription {

        /**
         * @throws DatException {@code DAT_INVALID_PARAMETER} if the cookie is not 40 bytes or
         *         {@code buffer} is null
         */
        public SharedVirtual {
            Checks.notNull(cookie, "LMR cookie");
            if (cookie.length != Dat.LMR_COOKIE_SIZE) {
                throw DatException.invalidParameter("LMR cookie has " + cookie.length + " bytes, not "
                        + Dat.LMR_COOKIE_SIZE);
            }
            cookie = cookie.clone();
            Checks.notNull(buffer, "region buffer");
        }

        /** A copy of the 40-byte cookie. */
        @Override
        public byte[] cookie() {
            return cookie.clone();
        }

        @Override
        public MemoryType memType() {
            return MemoryType.SHARED_VIRTUAL;
        }

        /** The region length, {@code buffer.remaining()} at the time of the call. */
        public long length() {
            return buffer.remaining();
        }

        /** Equal if the cookies have the same bytes and both name the same buffer object. */
        @Override
        public boolean equals(Object o) {
            return o instanceof SharedVirtual s && Arrays.equals(cookie, s.cookie) && buffer == s.buffer;
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(cookie) + System.identityHashCode(buffer);
        }

        @Override
        public String toString() {
            return "SharedVirtual[cookie=" + Arrays.toString(cookie) + ", buffer=" + buffer + "]";
        }
    }
}

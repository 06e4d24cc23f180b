package io.simrdma.dat;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The memory an LMR registers ({@code DAT_REGION_DESCRIPTION} together with its
 * {@code DAT_MEM_TYPE} and length, as dat_lmr_create takes them): one of {@link Virtual},
 * {@link Lmr} or {@link SharedVirtual}.
 *
 * <p>Ownership: the consumer owns every {@link ByteBuffer} given here. The provider registers it in
 * place, never copies it, and keeps a reference until the LMR is freed. The region is a fixed range
 * of indexes of the buffer (by default its position to its limit when the description is made);
 * changing the buffer's position or limit afterwards does not change the region, and the provider
 * never changes them either. Heap and direct buffers are both accepted; a read-only buffer cannot be
 * registered with a write privilege.
 *
 * <p>Thread safety: the records are immutable; the buffers they refer to are the consumer's.
 */
public sealed interface RegionDescription
        permits RegionDescription.Virtual, RegionDescription.Lmr, RegionDescription.SharedVirtual {

    /** The memory type of this description. */
    MemoryType memType();

    /**
     * Consumer memory ({@code DAT_MEM_TYPE_VIRTUAL}): {@code length} bytes of {@code buffer} from
     * index {@code offset}. {@link #Virtual(ByteBuffer)} takes the buffer's position and remaining
     * bytes at construction.
     *
     * @param buffer the consumer's buffer, heap or direct; not null
     * @param offset the index of the first registered byte
     * @param length the number of registered bytes ({@code DAT_VLEN length} of dat_lmr_create)
     */
    record Virtual(ByteBuffer buffer, int offset, int length) implements RegionDescription {

        /**
         * @throws DatException {@code DAT_INVALID_PARAMETER} if {@code buffer} is null or the range
         *         is not inside its capacity
         */
        public Virtual {
            checkRange(buffer, offset, length);
        }

        /** The bytes of {@code buffer} between its position and its limit now. */
        public Virtual(ByteBuffer buffer) {
            this(Checks.notNull(buffer, "region buffer"), buffer.position(), buffer.remaining());
        }

        @Override
        public MemoryType memType() {
            return MemoryType.VIRTUAL;
        }

        /** Equal if both name the same range of the same buffer object (not the same content). */
        @Override
        public boolean equals(Object o) {
            return o instanceof Virtual v && buffer == v.buffer && offset == v.offset && length == v.length;
        }

        @Override
        public int hashCode() {
            return (System.identityHashCode(buffer) * 31 + offset) * 31 + length;
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
     * Shared memory ({@code DAT_MEM_TYPE_SHARED_VIRTUAL}, uDAT only): a range of {@code buffer} as in
     * {@link Virtual}, identified among the consumers sharing it by a
     * {@link Dat#LMR_COOKIE_SIZE}-byte cookie ({@code DAT_LMR_COOKIE}), compared as 40 bytes, never
     * as a string.
     *
     * @param cookie the shared memory identifier, exactly 40 bytes; copied in and out
     * @param buffer the consumer's buffer; not null
     * @param offset the index of the first registered byte
     * @param length the number of registered bytes
     */
    record SharedVirtual(byte[] cookie, ByteBuffer buffer, int offset, int length) implements RegionDescription {

        /**
         * @throws DatException {@code DAT_INVALID_PARAMETER} if the cookie is not 40 bytes, or
         *         {@code buffer} is null or the range is not inside its capacity
         */
        public SharedVirtual {
            Checks.notNull(cookie, "LMR cookie");
            if (cookie.length != Dat.LMR_COOKIE_SIZE) {
                throw DatException.invalidParameter(
                        "LMR cookie has " + cookie.length + " bytes, not " + Dat.LMR_COOKIE_SIZE);
            }
            cookie = cookie.clone();
            checkRange(buffer, offset, length);
        }

        /** The bytes of {@code buffer} between its position and its limit now. */
        public SharedVirtual(byte[] cookie, ByteBuffer buffer) {
            this(cookie, Checks.notNull(buffer, "region buffer"), buffer.position(), buffer.remaining());
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

        /** Equal if the cookies have the same bytes and both name the same range of the same buffer object. */
        @Override
        public boolean equals(Object o) {
            return o instanceof SharedVirtual s
                    && Arrays.equals(cookie, s.cookie)
                    && buffer == s.buffer
                    && offset == s.offset
                    && length == s.length;
        }

        @Override
        public int hashCode() {
            return ((31 * Arrays.hashCode(cookie) + System.identityHashCode(buffer)) * 31 + offset) * 31 + length;
        }

        @Override
        public String toString() {
            return "SharedVirtual[cookie=" + Arrays.toString(cookie) + ", buffer=" + buffer + ", offset=" + offset
                    + ", length=" + length + "]";
        }
    }

    private static void checkRange(ByteBuffer buffer, int offset, int length) {
        Checks.notNull(buffer, "region buffer");
        if (offset < 0 || length < 0 || offset > buffer.capacity() - length) {
            throw DatException.invalidParameter(
                    "region [" + offset + ", +" + length + ") is outside the buffer's " + buffer.capacity() + " bytes");
        }
    }
}

package io.simrdma.fabric.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;

/**
 * The buffers a connection's frames leave in, kept and used again instead of made per frame:
 * <ul>
 *   <li>frame heads (length prefix, GIDs, IBA headers, a BURST's run) are written into direct
 *       buffers of {@link PacketCodec#MAX_HEAD_LENGTH} bytes taken in turn from a ring;</li>
 *   <li>a payload that lies in the sender's direct memory leaves through a view of that memory: per
 *       memory buffer (the last {@link #REGIONS} sent from) a ring of views over all of it, each
 *       pointed at the frame's bytes by its reader and writer index.</li>
 * </ul>
 * Each buffer handed out is retained once for the write: the channel releases it once its bytes
 * are in the socket (or the write failed), which brings its count back to the one this class
 * holds, and only then is it used again. The channel releases what it wrote in the order written,
 * so the oldest buffer of a ring is the first to come back: while it is still out, the others
 * are too, and the ring grows by one (up to {@link #MAX_HEADS} heads or {@link #MAX_VIEWS}
 * views per memory buffer; past that a buffer is made for the one frame, as before this class).
 * Nothing is copied: a view reads the sender's memory when the socket write happens, as the
 * per-frame views did.
 *
 * <p>A view keeps its memory buffer reachable until {@link #release} (the connection's end) or
 * until four other memory buffers were sent from since; the memory itself belongs to its region.
 *
 * <p>Thread safety: one instance per channel, used on its event loop.
 */
final class FrameBuffers {

    /** Memory buffers whose views are kept. */
    static final int REGIONS = 4;
    /** Most heads kept (each {@link PacketCodec#MAX_HEAD_LENGTH} bytes of direct memory). */
    static final int MAX_HEADS = 1024;
    /** Most views kept per memory buffer (a 64 KiB BURST each: 16 MiB in flight). */
    static final int MAX_VIEWS = 256;

    private final ByteBufAllocator alloc;
    private final Ring heads = new Ring(MAX_HEADS);
    private final ByteBuffer[] regions = new ByteBuffer[REGIONS];
    private final Ring[] views = new Ring[REGIONS];
    private final long[] regionUsed = new long[REGIONS];
    private long uses;
    private long made;
    private boolean released;

    FrameBuffers(ByteBufAllocator alloc) {
        this.alloc = alloc;
    }

    /**
     * An empty direct buffer of at least {@link PacketCodec#MAX_HEAD_LENGTH} bytes to write a
     * frame head into; the caller writes it to the channel (which releases it).
     */
    ByteBuf head() {
        ByteBuf b = released ? null : heads.takeFree();
        if (b != null) {
            return b.clear();
        }
        made++;
        b = alloc.directBuffer(PacketCodec.MAX_HEAD_LENGTH, PacketCodec.MAX_HEAD_LENGTH);
        if (!released && heads.add(b)) {
            b.retain();
        }
        return b;
    }

    /**
     * A buffer whose readable bytes are {@code length} bytes of {@code memory} from absolute index
     * {@code index}, without a copy; the caller writes it to the channel (which releases it).
     */
    ByteBuf view(ByteBuffer memory, int index, int length) {
        Ring ring = released ? null : ringOf(memory);
        ByteBuf b = ring == null ? null : ring.takeFree();
        if (b == null) {
            made++;
            b = Unpooled.wrappedBuffer(memory.duplicate().clear());
            if (ring != null && ring.add(b)) {
                b.retain();
            }
        }
        return b.setIndex(index, index + length);
    }

    /** Buffers made so far (each head or view not taken from a ring), for tests and counters. */
    long made() {
        return made;
    }

    /** Lets go of every kept buffer (those still being written are freed once written). Event loop. */
    void release() {
        released = true;
        heads.release();
        for (int i = 0; i < REGIONS; i++) {
            if (views[i] != null) {
                views[i].release();
                views[i] = null;
                regions[i] = null;
            }
        }
    }

    /** The view ring of {@code memory}, set up in place of the least recently used one if new. */
    private Ring ringOf(ByteBuffer memory) {
        long now = ++uses;
        int oldest = 0;
        for (int i = 0; i < REGIONS; i++) {
            if (regions[i] == memory) {
                regionUsed[i] = now;
                return views[i];
            }
            if (regionUsed[i] < regionUsed[oldest]) {
                oldest = i;
            }
        }
        if (views[oldest] == null) {
            views[oldest] = new Ring(MAX_VIEWS);
        } else {
            views[oldest].release(); // the views of the memory displaced (freed once written)
        }
        regions[oldest] = memory;
        regionUsed[oldest] = now;
        return views[oldest];
    }

    /** Buffers used in turn, each holding one reference of this class's. */
    private static final class Ring {
        private final int max;
        private ByteBuf[] buffers = new ByteBuf[8];
        private int count;
        /** The buffer used longest ago (the next to come back). */
        private int next;

        Ring(int max) {
            this.max = max;
        }

        /** The oldest buffer, retained for the caller, if the channel is done with it; else null. */
        ByteBuf takeFree() {
            if (count == 0) {
                return null;
            }
            ByteBuf b = buffers[next];
            if (b.refCnt() != 1) {
                return null;
            }
            next = next + 1 == count ? 0 : next + 1;
            return b.retain();
        }

        /** Keeps {@code b} as the newest (the ring grows by one); false if the ring is full. */
        boolean add(ByteBuf b) {
            if (count == max) {
                return false;
            }
            if (count == buffers.length) {
                buffers = java.util.Arrays.copyOf(buffers, Math.min(max, count * 2));
            }
            System.arraycopy(buffers, next, buffers, next + 1, count - next);
            buffers[next] = b;
            count++;
            next = next + 1 == count ? 0 : next + 1;
            return true;
        }

        void release() {
            for (int i = 0; i < count; i++) {
                buffers[i].release();
                buffers[i] = null;
            }
            count = 0;
            next = 0;
        }
    }
}

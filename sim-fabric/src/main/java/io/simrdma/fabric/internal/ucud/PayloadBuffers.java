package io.simrdma.fabric.internal.ucud;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;
import java.util.ArrayDeque;

/**
 * The payload copies of a UC or UD QP's packets: heap buffers of {@link #SIZE} bytes (the largest
 * MTU), owned by the packet that carries them and back here when it is released, wherever that
 * happens (the receiver, a drop, a TCP link's encoder). A send completes as its packets leave, so
 * its bytes are copied first: the application may reuse its memory when it sees the completion.
 *
 * <p>Recycled without Netty's pool or leak tracker, so a steady stream of datagrams allocates
 * nothing. At most {@link #MAX_FREE} free buffers are kept.
 *
 * <p>Thread safety: thread-safe ({@link #take} on the engine thread, the release anywhere).
 */
final class PayloadBuffers {

    /** Bytes of each buffer: MTU 4096, the largest packet payload. */
    static final int SIZE = 4096;

    private static final int MAX_FREE = 256;

    private final ArrayDeque<Buf> free = new ArrayDeque<>();

    /** An empty buffer for {@code n} bytes, refCnt 1; the packet's release returns it. */
    ByteBuf take(int n) {
        if (n > SIZE) {
            return Unpooled.buffer(n);
        }
        Buf b;
        synchronized (free) {
            b = free.poll();
        }
        if (b == null) {
            return new Buf();
        }
        b.reuse();
        return b;
    }

    private void give(Buf b) {
        synchronized (free) {
            if (free.size() < MAX_FREE) {
                free.push(b);
            }
        }
    }

    /** A heap buffer whose last release hands it back instead of freeing its array. */
    private final class Buf extends UnpooledHeapByteBuf {

        Buf() {
            super(UnpooledByteBufAllocator.DEFAULT, SIZE, SIZE);
        }

        @Override
        protected void deallocate() {
            give(this);
        }

        void reuse() {
            resetRefCnt();
            clear();
        }
    }
}

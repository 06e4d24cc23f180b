package io.simrdma.fabric.wire;

import java.util.function.Supplier;

/**
 * The free packets, so that the engine allocates none per packet in steady state. Packets move
 * between threads (a sender's executor allocates, the receiver's releases), so the pool is one
 * set of stripes, each a small stack under its own lock: a thread takes from and returns to the
 * stripe its id picks, and takes from the others when its own is empty. A full stripe drops
 * the packet for the garbage collector.
 *
 * <p>Netty's Recycler is not used: since 4.2 it pools only on threads whose thread-locals are
 * cleaned up (its own event-loop threads), and the deterministic scheduler runs the engine on the
 * application's thread.
 *
 * <p>Thread safety: thread-safe.
 */
final class PacketPool<T> {

    private static final int STRIPES = 8;
    private static final int STRIPE_CAPACITY = 1024;

    private static final class Stripe {
        final Object[] items = new Object[STRIPE_CAPACITY];
        int size;
    }

    private final Stripe[] stripes = new Stripe[STRIPES];
    private final Supplier<T> factory;

    PacketPool(Supplier<T> factory) {
        this.factory = factory;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Stripe();
        }
    }

    private static int home() {
        return (int) Thread.currentThread().getId() & (STRIPES - 1);
    }

    /** A free object, or a new one. */
    @SuppressWarnings("unchecked")
    T get() {
        int h = home();
        for (int i = 0; i < STRIPES; i++) {
            Stripe s = stripes[(h + i) & (STRIPES - 1)];
            synchronized (s) {
                if (s.size > 0) {
                    Object o = s.items[--s.size];
                    s.items[s.size] = null;
                    return (T) o;
                }
            }
        }
        return factory.get();
    }

    /** Returns a free object; the caller must not use it afterwards. */
    void put(T o) {
        Stripe s = stripes[home()];
        synchronized (s) {
            if (s.size < STRIPE_CAPACITY) {
                s.items[s.size++] = o;
            }
        }
    }
}

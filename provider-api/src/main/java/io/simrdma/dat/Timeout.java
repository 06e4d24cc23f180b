package io.simrdma.dat;

import java.time.Duration;

/**
 * A DAT timeout ({@code DAT_TIMEOUT}): an unsigned 32-bit number of microseconds, where all bits
 * set ({@code DAT_TIMEOUT_INFINITE}, 0xFFFFFFFF) means "wait indefinitely". Used by
 * {@link EventDispatcher#waitForEvent}, {@link ConsumerNotificationObject#waitForNotification},
 * {@link Endpoint#connect} and {@link Endpoint#dupConnect}.
 *
 * <p>Thread safety: immutable.
 *
 * @param micros microseconds, 0 to 0xFFFFFFFF; 0xFFFFFFFF is {@link #INFINITE}
 */
public record Timeout(long micros) {

    /** The largest value, {@code DAT_TIMEOUT_INFINITE}. */
    public static final long INFINITE_MICROS = 0xFFFF_FFFFL;

    /** {@code DAT_TIMEOUT_INFINITE}: wait indefinitely. */
    public static final Timeout INFINITE = new Timeout(INFINITE_MICROS);

    /** No wait at all: a wait returns at once. */
    public static final Timeout ZERO = new Timeout(0);

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} if {@code micros} is outside 0 to 0xFFFFFFFF
     */
    public Timeout {
        if (micros < 0 || micros > INFINITE_MICROS) {
            throw DatException.invalidParameter("timeout " + micros + " us is outside 0..0xFFFFFFFF");
        }
    }

    /** A timeout of {@code micros} microseconds. */
    public static Timeout ofMicros(long micros) {
        return new Timeout(micros);
    }

    /** A timeout of {@code millis} milliseconds. */
    public static Timeout ofMillis(long millis) {
        if (millis < 0 || millis > INFINITE_MICROS / 1000) {
            throw DatException.invalidParameter("timeout " + millis + " ms is outside the DAT_TIMEOUT range");
        }
        return new Timeout(millis * 1000);
    }

    /** A timeout of {@code duration}, rounded down to whole microseconds. */
    public static Timeout of(Duration duration) {
        if (duration == null
                || duration.isNegative()
                || duration.compareTo(Duration.ofNanos(INFINITE_MICROS * 1000)) > 0) {
            throw DatException.invalidParameter("timeout " + duration + " is outside the DAT_TIMEOUT range");
        }
        return new Timeout(duration.toNanos() / 1000);
    }

    /** Whether this is {@code DAT_TIMEOUT_INFINITE}. */
    public boolean isInfinite() {
        return micros == INFINITE_MICROS;
    }

    /** The timeout in nanoseconds; {@link Long#MAX_VALUE} for {@link #INFINITE}. */
    public long toNanos() {
        return isInfinite() ? Long.MAX_VALUE : micros * 1000;
    }
}

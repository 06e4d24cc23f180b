package io.simrdma.fabric.tcp;

import io.netty.handler.codec.CorruptedFrameException;

/**
 * Bad input from a peer: the connection it arrived on is closed, its {@link #kind()} counted and
 * logged. These are the only exceptions the frame decoder throws for any input.
 *
 * <p>Carries no stack trace: it describes the peer's bytes, not a place in this code.
 *
 * <p>Thread safety: immutable once thrown.
 */
public final class FrameException extends CorruptedFrameException {

    private final FrameError kind;

    public FrameException(FrameError kind, String message) {
        super(kind + ": " + message);
        this.kind = kind;
    }

    public FrameError kind() {
        return kind;
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }
}

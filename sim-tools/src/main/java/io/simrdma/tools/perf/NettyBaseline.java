package io.simrdma.tools.perf;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.HdrHistogram.Histogram;

/**
 * The baseline between two JVMs: a raw Netty connection between the same two processes as the
 * test, on the transport a TCP node uses (epoll where available, else NIO), with TCP_NODELAY like
 * the node's. {@link Client#stream} writes messages back to back (flushing every 16, pausing while
 * the channel is not writable) until the server acknowledges the last byte; {@link Client#pingPong}
 * sends one message at a time and waits for the server's echo of all its bytes.
 *
 * <p>Thread safety: each side's methods are called by one thread; the I/O runs on one event loop
 * per side.
 */
final class NettyBaseline {

    private static final int FLUSH_EVERY = 16;
    private static final long WAIT_SECONDS = 600;

    private NettyBaseline() {}

    private static MultiThreadIoEventLoopGroup group(String name) {
        IoHandlerFactory io = Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("simrdma-perf-" + name, true), io);
    }

    private static void shutdown(MultiThreadIoEventLoopGroup g) {
        g.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /** The server: echoes every byte, or counts a stream's bytes and answers one byte when all came. */
    static final class Server implements AutoCloseable {
        private final MultiThreadIoEventLoopGroup group = group("netty-server");
        private final Channel channel;
        private volatile long expected;

        /** Listens on {@code host}, an ephemeral port. */
        Server(String host) {
            Class<? extends ServerChannel> type =
                    Epoll.isAvailable() ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
            channel = new ServerBootstrap()
                    .group(group)
                    .channel(type)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new ServerHandler());
                        }
                    })
                    .bind(host, 0)
                    .syncUninterruptibly()
                    .channel();
        }

        int port() {
            return ((InetSocketAddress) channel.localAddress()).getPort();
        }

        /** The next {@code bytes} bytes are a stream to count (then one byte is answered), not to echo. */
        void expectStream(long bytes) {
            expected = bytes;
        }

        @Override
        public void close() {
            channel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
            shutdown(group);
        }

        private final class ServerHandler extends ChannelInboundHandlerAdapter {
            private long received;

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                long want = expected;
                if (want > 0) {
                    ByteBuf b = (ByteBuf) msg;
                    received += b.readableBytes();
                    b.release();
                    if (received >= want) {
                        received = 0;
                        expected = 0;
                        ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1}));
                    }
                } else {
                    ctx.writeAndFlush(msg);
                }
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                ctx.close();
            }
        }
    }

    /** The client: measures the stream and the ping-pong against a {@link Server}. */
    static final class Client implements AutoCloseable {
        private final MultiThreadIoEventLoopGroup group = group("netty-client");
        private final Channel channel;
        private final ClientHandler handler = new ClientHandler();

        Client(String host, int port) {
            Class<? extends Channel> type = Epoll.isAvailable() ? EpollSocketChannel.class : NioSocketChannel.class;
            channel = new Bootstrap()
                    .group(group)
                    .channel(type)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(handler)
                    .connect(host, port)
                    .syncUninterruptibly()
                    .channel();
        }

        /**
         * Streams {@code count} messages of {@code size} bytes; the server must expect them
         * ({@link Server#expectStream}). Returns the nanoseconds from the first write to the server's answer.
         */
        long stream(int size, long count) {
            CompletableFuture<Long> done = new CompletableFuture<>();
            channel.eventLoop().execute(() -> handler.startStream(channel, size, count, done));
            return await(done);
        }

        /** {@code samples} round trips of {@code size}-byte messages (after a warm-up of a quarter as many). */
        Histogram pingPong(int size, int samples) {
            CompletableFuture<Histogram> done = new CompletableFuture<>();
            channel.eventLoop().execute(() -> handler.startPingPong(channel, size, samples, done));
            return await(done);
        }

        private static <T> T await(CompletableFuture<T> f) {
            try {
                return f.get(WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PerfFailure("interrupted while measuring the Netty baseline", e);
            } catch (ExecutionException | TimeoutException e) {
                throw new PerfFailure("the Netty baseline failed: " + e, e);
            }
        }

        @Override
        public void close() {
            channel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
            shutdown(group);
        }

        /** Runs on the client's event loop. */
        private static final class ClientHandler extends ChannelInboundHandlerAdapter {
            private ByteBuf message;
            private long toSend;
            private long start;
            private CompletableFuture<Long> streamDone;
            private CompletableFuture<Histogram> pingDone;
            private Histogram histogram;
            private int size;
            private long rounds;
            private long warm;
            private long received;
            private long sentAt;

            void startStream(Channel ch, int bytes, long count, CompletableFuture<Long> done) {
                message = Unpooled.directBuffer(bytes).writeZero(bytes);
                toSend = count;
                streamDone = done;
                start = System.nanoTime();
                writeWhileWritable(ch);
            }

            private void writeWhileWritable(Channel ch) {
                int n = 0;
                while (toSend > 0 && ch.isWritable()) {
                    ch.write(message.retainedDuplicate());
                    toSend--;
                    if (++n % FLUSH_EVERY == 0) {
                        ch.flush();
                    }
                }
                ch.flush();
            }

            void startPingPong(Channel ch, int bytes, int samples, CompletableFuture<Histogram> done) {
                message = Unpooled.directBuffer(bytes).writeZero(bytes);
                size = bytes;
                warm = Math.max(1000, samples / 4);
                rounds = samples + warm;
                histogram = new Histogram(3);
                pingDone = done;
                received = 0;
                sentAt = System.nanoTime();
                ch.writeAndFlush(message.retainedDuplicate());
            }

            @Override
            public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                if (streamDone != null && toSend > 0 && ctx.channel().isWritable()) {
                    writeWhileWritable(ctx.channel());
                }
            }

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                int n = ((ByteBuf) msg).readableBytes();
                ReferenceCountUtil.release(msg);
                if (streamDone != null) {
                    CompletableFuture<Long> d = streamDone;
                    streamDone = null;
                    release();
                    d.complete(System.nanoTime() - start);
                    return;
                }
                if (pingDone == null) {
                    return;
                }
                received += n;
                if (received < size) {
                    return;
                }
                received -= size; // one message in flight: at most one answer completes
                long now = System.nanoTime();
                if (warm > 0) {
                    warm--;
                } else {
                    histogram.recordValue(now - sentAt);
                }
                if (--rounds == 0) {
                    CompletableFuture<Histogram> d = pingDone;
                    pingDone = null;
                    release();
                    d.complete(histogram);
                    return;
                }
                sentAt = System.nanoTime();
                ctx.writeAndFlush(message.retainedDuplicate());
            }

            private void release() {
                if (message != null) {
                    message.release();
                    message = null;
                }
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                if (streamDone != null) {
                    streamDone.completeExceptionally(cause);
                }
                if (pingDone != null) {
                    pingDone.completeExceptionally(cause);
                }
                ctx.close();
            }
        }
    }
}

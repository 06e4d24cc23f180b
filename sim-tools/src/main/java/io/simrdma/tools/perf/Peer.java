package io.simrdma.tools.perf;

import org.HdrHistogram.Histogram;

/**
 * The client's view of the server side and of the baseline for one layer: in this JVM
 * ({@link Local}) or in another over the control connection ({@link TcpPerf}).
 */
interface Peer {

    /** Makes the server's requests for messages of {@code size} bytes. */
    void prepare(int size);

    /**
     * Starts the server's part of a run. Returns the role the measuring thread steps itself (a
     * deterministic fabric's one thread), or null when the server runs on its own.
     */
    ServerRole begin(int size);

    /** Ends the server's part of a run. */
    void end();

    /** What the baseline of a bandwidth ({@code latency} false) or latency test is. */
    String baseline(boolean latency);

    /** The baseline's bytes and messages per second for {@code messages} messages of {@code size} bytes. */
    double[] bandwidthBaseline(int size, long messages);

    /** The baseline's round trips for messages of {@code size} bytes, in nanoseconds. */
    Histogram latencyBaseline(int size, int samples);

    /** The server side in this JVM; the baselines are the copy, the hand-off and the spin round trip. */
    final class Local implements Peer {
        private final PerfSide server;
        private final PerfSettings settings;
        private final boolean sameThread;
        private ServerRole role;
        private Thread thread;

        /** {@code sameThread}: the measuring thread steps the server (a deterministic fabric). */
        Local(PerfSide server, PerfSettings settings, boolean sameThread) {
            this.server = server;
            this.settings = settings;
            this.sameThread = sameThread;
        }

        @Override
        public void prepare(int size) {
            server.prepare(settings.test().verb(), size);
        }

        @Override
        public ServerRole begin(int size) {
            role = new ServerRole(server, settings.test(), size);
            if (sameThread) {
                return role;
            }
            ServerRole r = role;
            thread = new Thread(r::runUntilStopped, "simrdma-perf-server");
            thread.setDaemon(true);
            thread.start();
            return null;
        }

        @Override
        public void end() {
            if (thread == null && role != null) {
                role.drain();
            }
            if (thread != null) {
                role.stop();
                try {
                    thread.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new PerfFailure("interrupted while stopping the server thread", e);
                }
                thread = null;
                RuntimeException f = role.failure();
                if (f != null) {
                    role = null;
                    throw new PerfFailure("the server side failed: " + f.getMessage(), f);
                }
            }
            role = null;
        }

        @Override
        public String baseline(boolean latency) {
            return latency
                    ? "round trip between two threads spinning on volatile fields (halved like the test)"
                    : "BW: copy of a direct ByteBuffer of the same size into another, as many messages as the test"
                            + " through a buffer pair per QP, averaged; MsgRate: ArrayBlockingQueue(tx-depth) hand-off"
                            + " between two threads";
        }

        @Override
        public double[] bandwidthBaseline(int size, long messages) {
            return new double[] {Baselines.copy(size, messages, settings.qps()), Baselines.handOff(settings.txDepth())};
        }

        @Override
        public Histogram latencyBaseline(int size, int samples) {
            return Baselines.spinRoundTrip(samples);
        }
    }
}

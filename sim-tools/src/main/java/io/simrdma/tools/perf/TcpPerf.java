package io.simrdma.tools.perf;

import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.RcConnect;
import io.simrdma.fabric.tcp.TcpConfig;
import io.simrdma.fabric.tcp.TcpNode;
import io.simrdma.fabric.wire.Gid;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * A test between two TCP nodes, perftest's way: the server ({@code --listen}) waits on a control
 * socket; the client ({@code --peer}) connects, sends the settings, and both open a node (a
 * {@link TcpNode} for verbs, a {@code simtcp:} IA for DAT) on the address of the control
 * connection with an ephemeral port, exchange QP endpoints and buffers over the control socket,
 * connect (RcConnect for verbs; dat_ep_connect to the server's PSP for DAT), and run. The server's
 * part of each run ({@link ServerRole}) runs on a thread of the server's JVM between BEGIN and END.
 * The baselines are a raw Netty stream and ping-pong between the same two JVMs ({@link NettyBaseline}).
 *
 * <p>Control messages: HELLO settings / NETTY port; LAYER name / VERBS or DAT with the server's
 * side, answered with the client's, then CONNECTED; PREPARE size / OK; BEGIN size / GO; END /
 * ENDED; STREAM bytes / OK; CLOSE / CLOSED; BYE.
 */
final class TcpPerf {

    /** Fabric name of both sides' nodes (nodes of different fabrics refuse each other). */
    static final String FABRIC = "simrdma";

    private static final int REPLY_MILLIS = 120_000;

    private TcpPerf() {}

    /** Words describing one side's QPs: per QP its GID, QPN, first PSN, buffer address and R_Key. */
    private static List<String> verbsWords(VerbsSide side) {
        List<String> w = new ArrayList<>();
        List<RcConnect.Endpoint> eps = side.endpoints();
        List<PerfSide.Remote> rs = side.remotes();
        for (int q = 0; q < eps.size(); q++) {
            w.add(eps.get(q).gid().toString());
            w.add(Integer.toString(eps.get(q).qpn()));
            w.add(Integer.toString(eps.get(q).psn()));
            w.add(Long.toString(rs.get(q).addr()));
            w.add(Integer.toString(rs.get(q).rkey()));
        }
        return w;
    }

    private static void connectVerbs(VerbsSide side, String[] m) {
        List<RcConnect.Endpoint> peer = new ArrayList<>();
        List<PerfSide.Remote> bufs = new ArrayList<>();
        for (int i = 1; i + 4 < m.length; i += 5) {
            peer.add(new RcConnect.Endpoint(Gid.parse(m[i]), Integer.parseInt(m[i + 1]), Integer.parseInt(m[i + 2])));
            bufs.add(new PerfSide.Remote(Long.parseLong(m[i + 3]), Integer.parseInt(m[i + 4])));
        }
        if (peer.size() != side.qps()) {
            throw new PerfFailure("the peer described " + peer.size() + " QPs, this side has " + side.qps());
        }
        side.connect(side.endpoints(), peer, bufs, VerbsSide.options(true));
    }

    private static List<String> datWords(DatSide side) {
        List<String> w = new ArrayList<>();
        for (PerfSide.Remote r : side.remotes()) {
            w.add(Long.toString(r.addr()));
            w.add(Integer.toString(r.rkey()));
        }
        return w;
    }

    private static List<PerfSide.Remote> remotes(String[] m, int from) {
        List<PerfSide.Remote> l = new ArrayList<>();
        for (int i = from; i + 1 < m.length; i += 2) {
            l.add(new PerfSide.Remote(Long.parseLong(m[i]), Integer.parseInt(m[i + 1])));
        }
        return l;
    }

    private static Object[] words(String first, List<String> rest) {
        List<Object> l = new ArrayList<>();
        l.add(first);
        l.addAll(rest);
        return l.toArray();
    }

    /** One layer's side and what it runs on; closing it closes both. */
    private record Opened(PerfSide side, Fabric fabric) implements AutoCloseable {
        @Override
        public void close() {
            try {
                side.close();
            } finally {
                if (fabric != null) {
                    fabric.close();
                }
            }
        }
    }

    private static Fabric verbsFabric() {
        return Fabric.builder().name(FABRIC).threaded().build();
    }

    private static TcpNode node(Fabric f, String name, String host) {
        return TcpNode.start(f, TcpConfig.builder(name).listen(host, 0).build());
    }

    private static InterfaceAdapter datIa(String name, String host) {
        return DatSide.open("simtcp:" + host + ":0?node=" + name + "&fabric=" + FABRIC);
    }

    // ------------------------------------------------------------------ server

    /** The {@code --listen} side: serves one client's run, then returns. */
    static final class Server implements AutoCloseable {
        private final ServerSocket socket;
        private final String host;

        /** Binds the control socket. */
        Server(InetSocketAddress listen) throws IOException {
            socket = new ServerSocket();
            socket.bind(listen, 1);
            host = listen.getAddress().getHostAddress();
        }

        InetSocketAddress address() {
            return new InetSocketAddress(socket.getInetAddress(), socket.getLocalPort());
        }

        /** Accepts one client and serves its run; {@code capture} takes this side's packets. */
        void serveOne(PrintWriter log, PerfCapture capture) throws IOException {
            try (Socket s = socket.accept();
                    Control ctl = new Control(s);
                    NettyBaseline.Server netty = new NettyBaseline.Server(host)) {
                log.println("perf server: client " + s.getRemoteSocketAddress());
                log.flush();
                PerfSettings settings;
                try {
                    settings = PerfSettings.decode(ctl.expect("HELLO", REPLY_MILLIS)[1]);
                } catch (RuntimeException e) {
                    ctl.send("ERROR", e.getMessage());
                    throw e;
                }
                ctl.send("NETTY", netty.port());
                try {
                    serve(ctl, settings, netty, capture);
                } catch (RuntimeException e) {
                    ctl.send("ERROR", String.valueOf(e.getMessage()).replace('\n', ' '));
                    throw e;
                }
            }
        }

        private void serve(Control ctl, PerfSettings s, NettyBaseline.Server netty, PerfCapture capture) {
            Opened opened = null;
            ServerRole role = null;
            Thread thread = null;
            try {
                while (true) {
                    String[] m = ctl.receive(0);
                    switch (m[0]) {
                        case "LAYER" -> {
                            opened = open(ctl, s, PerfSettings.Layer.valueOf(m[1]), capture);
                            PerfRunner.postInitialReceives(s, null, opened.side());
                            ctl.send("CONNECTED");
                        }
                        case "PREPARE" -> {
                            opened.side().prepare(s.test().verb(), Integer.parseInt(m[1]));
                            ctl.send("OK");
                        }
                        case "BEGIN" -> {
                            role = new ServerRole(opened.side(), s.test(), Integer.parseInt(m[1]));
                            thread = new Thread(role::runUntilStopped, "simrdma-perf-server");
                            thread.setDaemon(true);
                            thread.start();
                            ctl.send("GO");
                        }
                        case "END" -> {
                            role.stop();
                            thread.join();
                            thread = null;
                            if (role.failure() != null) {
                                throw new PerfFailure(
                                        "the server side failed: "
                                                + role.failure().getMessage(),
                                        role.failure());
                            }
                            ctl.send("ENDED");
                        }
                        case "STREAM" -> {
                            netty.expectStream(Long.parseLong(m[1]));
                            ctl.send("OK");
                        }
                        case "CLOSE" -> {
                            opened.close();
                            opened = null;
                            ctl.send("CLOSED");
                        }
                        case "BYE" -> {
                            return;
                        }
                        default -> throw new PerfFailure("unknown control message " + String.join(" ", m));
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PerfFailure("interrupted", e);
            } catch (PerfFailure e) {
                throw e;
            } catch (Exception e) {
                throw new PerfFailure(e.toString(), e);
            } finally {
                if (role != null) {
                    role.stop();
                }
                if (opened != null) {
                    try {
                        opened.close();
                    } catch (Exception e) {
                        // tearing down after a failure
                    }
                }
            }
        }

        private Opened open(Control ctl, PerfSettings s, PerfSettings.Layer layer, PerfCapture capture) {
            if (layer == PerfSettings.Layer.VERBS) {
                Fabric f = verbsFabric();
                try {
                    capture.add(f);
                    VerbsSide side = new VerbsSide(node(f, "perf-server", host).device(), s);
                    ctl.send(words("VERBS", verbsWords(side)));
                    connectVerbs(side, ctl.expect("VERBS", REPLY_MILLIS));
                    return new Opened(side, f);
                } catch (RuntimeException e) {
                    f.close();
                    throw e;
                }
            }
            InterfaceAdapter ia = datIa("perf-server", host);
            DatSide side = new DatSide(ia, s);
            try {
                capture.add(ia);
                side.listen();
                InetSocketAddress a = (InetSocketAddress) side.address();
                List<String> w =
                        new ArrayList<>(List.of(a.getAddress().getHostAddress(), Integer.toString(a.getPort())));
                w.addAll(datWords(side));
                ctl.send(words("DAT", w));
                side.setRemotes(remotes(ctl.expect("DAT", REPLY_MILLIS), 1));
                for (int q = 0; q < s.qps(); q++) {
                    side.accept(q);
                }
                return new Opened(side, null);
            } catch (RuntimeException e) {
                side.close();
                throw e;
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    // ------------------------------------------------------------------ client

    /**
     * The {@code --peer} side: runs every layer and size against the server at {@code peer};
     * {@code capture} takes this side's packets.
     */
    static void runClient(InetSocketAddress peer, PerfSettings s, Report report, Progress progress, PerfCapture capture)
            throws IOException {
        Socket socket = new Socket();
        socket.connect(peer, 10_000);
        try (Control ctl = new Control(socket)) {
            String host = ((InetSocketAddress) socket.getLocalSocketAddress())
                    .getAddress()
                    .getHostAddress();
            ctl.send("HELLO", s.encode());
            int nettyPort = Integer.parseInt(ctl.expect("NETTY", REPLY_MILLIS)[1]);
            try (NettyBaseline.Client netty =
                    new NettyBaseline.Client(peer.getAddress().getHostAddress(), nettyPort)) {
                report.note("Nodes           : this JVM " + host + ", server "
                        + peer.getAddress().getHostAddress() + " (control port " + peer.getPort() + ")");
                for (PerfSettings.Layer layer : s.layer().runs()) {
                    ctl.send("LAYER", layer.name());
                    try (Opened opened = open(ctl, s, layer, host, capture)) {
                        ctl.expect("CONNECTED", REPLY_MILLIS);
                        new PerfRunner(s, report, progress, capture)
                                .runLayer(opened.side(), new Remote(ctl, netty, s), null);
                        ctl.send("CLOSE");
                        ctl.expect("CLOSED", REPLY_MILLIS);
                    }
                }
                ctl.send("BYE");
            }
        }
    }

    private static Opened open(
            Control ctl, PerfSettings s, PerfSettings.Layer layer, String host, PerfCapture capture) {
        if (layer == PerfSettings.Layer.VERBS) {
            Fabric f = verbsFabric();
            try {
                capture.add(f);
                VerbsSide side = new VerbsSide(node(f, "perf-client", host).device(), s);
                String[] m = ctl.expect("VERBS", REPLY_MILLIS);
                ctl.send(words("VERBS", verbsWords(side)));
                connectVerbs(side, m);
                return new Opened(side, f);
            } catch (RuntimeException e) {
                f.close();
                throw e;
            }
        }
        InterfaceAdapter ia = datIa("perf-client", host);
        DatSide side = new DatSide(ia, s);
        try {
            capture.add(ia);
            String[] m = ctl.expect("DAT", REPLY_MILLIS);
            InetSocketAddress server = new InetSocketAddress(InetAddress.getByName(m[1]), Integer.parseInt(m[2]));
            side.setRemotes(remotes(m, 3));
            ctl.send(words("DAT", datWords(side)));
            for (int q = 0; q < s.qps(); q++) {
                side.connect(q, server);
                side.awaitEstablished(q);
            }
            return new Opened(side, null);
        } catch (IOException | RuntimeException e) {
            side.close();
            throw e instanceof RuntimeException r ? r : new PerfFailure(e.toString(), e);
        }
    }

    /** The server in the other JVM, driven over the control connection; baselines over Netty. */
    private static final class Remote implements Peer {
        private final Control ctl;
        private final NettyBaseline.Client netty;
        private final PerfSettings settings;

        Remote(Control ctl, NettyBaseline.Client netty, PerfSettings settings) {
            this.ctl = ctl;
            this.netty = netty;
            this.settings = settings;
        }

        @Override
        public void prepare(int size) {
            ctl.send("PREPARE", size);
            ctl.expect("OK", REPLY_MILLIS);
        }

        @Override
        public ServerRole begin(int size) {
            ctl.send("BEGIN", size);
            ctl.expect("GO", REPLY_MILLIS);
            return null;
        }

        @Override
        public void end() {
            ctl.send("END");
            ctl.expect("ENDED", REPLY_MILLIS);
        }

        @Override
        public String baseline(boolean latency) {
            return latency
                    ? "raw Netty ping-pong of the same size between the same two JVMs (halved like the test)"
                    : "raw Netty stream of messages of the same size between the same two JVMs (BW and MsgRate)";
        }

        /**
         * The raw Netty stream of as many messages as the test moved, after a warm-up like the
         * test's ({@link PerfSettings#warmup()} messages per QP, repeated for at least
         * {@link PerfSettings#warmupMillis()}): the first stream of a JVM runs interpreted and C1
         * code (2-4x the CPU time per MiB of later ones), so without it the first layer of
         * {@code --layer both} was set against a cold baseline and the second against a warm one.
         */
        @Override
        public double[] bandwidthBaseline(int size, long messages) {
            if (settings.warmup() > 0) {
                long n = Math.min(messages, (long) settings.warmup() * settings.qps());
                long until = System.nanoTime() + settings.warmupMillis() * 1_000_000L;
                do {
                    stream(size, n);
                } while (System.nanoTime() - until < 0);
            }
            long nanos = Math.max(1, stream(size, messages));
            double rate = messages * 1e9 / nanos;
            return new double[] {rate * size, rate};
        }

        private long stream(int size, long messages) {
            ctl.send("STREAM", size * messages);
            ctl.expect("OK", REPLY_MILLIS);
            return netty.stream(size, messages);
        }

        @Override
        public Histogram latencyBaseline(int size, int samples) {
            return netty.pingPong(size, samples);
        }
    }
}

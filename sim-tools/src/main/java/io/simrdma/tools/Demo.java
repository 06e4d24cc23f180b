package io.simrdma.tools;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.ConnectionEvent;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatEvent;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EvdWaitResult;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.PublicServicePoint;
import io.simrdma.dat.Qos;
import io.simrdma.dat.RegionDescription;
import io.simrdma.dat.RmrTriplet;
import io.simrdma.dat.Timeout;
import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Counter;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceConfig;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.FaultRule;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.Mtu;
import io.simrdma.fabric.PacketEvent;
import io.simrdma.fabric.PacketMatcher;
import io.simrdma.fabric.QpCaps;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.TraceListener;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.WrOpcode;
import io.simrdma.fabric.capture.PacketCapture;
import io.simrdma.fabric.cm.CmEvent;
import io.simrdma.fabric.cm.CmEventChannel;
import io.simrdma.fabric.cm.CmEventType;
import io.simrdma.fabric.cm.CmId;
import io.simrdma.fabric.cm.ConnParam;
import io.simrdma.fabric.cm.PortSpace;
import io.simrdma.fabric.cm.RdmaCm;
import io.simrdma.fabric.view.HtmlView;
import io.simrdma.fabric.view.Ladder;
import io.simrdma.fabric.view.RunRecording;
import io.simrdma.fabric.wire.Aeth;
import io.simrdma.fabric.wire.HeaderType;
import io.simrdma.fabric.wire.Packet;
import io.simrdma.provider.SimProvider;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The demo of {@code simrdma demo}: the same work done twice, first with verbs and the connection
 * manager on the fabric, then with the DAT provider on top of it. Part one runs over a link that
 * loses a share of the request packets, so the RC transport's retransmissions show; every transfer
 * is checked byte for byte.
 *
 * <p>On the deterministic fabric (the default) the output, timestamps included, is the same on
 * every run with the same seed: the clock is virtual.
 */
final class Demo {

    /**
     * Demo settings.
     *
     * @param pcap   where to write a capture of both parts (pcapng), or null
     * @param ladder print each part's packet ladder
     * @param html   where to write the run viewer page of both parts, or null
     */
    record Options(boolean threaded, long seed, double loss, boolean trace, Path pcap, boolean ladder, Path html) {

        Options(boolean threaded, long seed, double loss, boolean trace) {
            this(threaded, seed, loss, trace, null, false, null);
        }
    }

    private static final int PORT = 7471;
    private static final int BULK = 16 * 1024;
    private static final long WAIT_SECONDS = 30;

    private final Options options;
    private final PrintWriter out;
    private PacketCapture capture;
    private final List<RunRecording> runs = new ArrayList<>();

    Demo(Options options, PrintWriter out) {
        this.options = options;
        this.out = out;
    }

    /** Runs both parts; a failed check throws {@link DemoFailure}. */
    void run() {
        String mode = options.threaded()
                ? "threaded (real time, one thread per device)"
                : "deterministic (virtual time, seed " + options.seed() + ")";
        out.println("simrdma demo: fabric " + mode);
        out.println();
        try {
            verbs();
            out.println();
            dat();
        } finally {
            if (capture != null) {
                capture.stop();
            }
        }
        out.println();
        if (capture != null) {
            out.println("capture: " + capture.frames() + " packets written to " + options.pcap()
                    + " (open it with wireshark, or: tshark -r " + options.pcap() + ")");
        }
        if (options.html() != null) {
            HtmlView.write(options.html(), "simrdma demo", runs);
            out.println("run viewer: " + options.html() + " (open it in a browser; click a packet for its headers)");
        }
        out.println("demo passed: every transfer verified");
        out.flush();
    }

    /** Starts the capture and the recording a part's fabric has, as the options ask. */
    private RunRecording observe(Fabric fabric, String title) {
        if (options.pcap() != null) {
            if (capture == null) {
                capture = PacketCapture.on(fabric).interfaceName("simrdma demo").start(options.pcap());
            } else {
                capture.attach(fabric);
            }
        }
        if (!options.ladder() && options.html() == null) {
            return null;
        }
        RunRecording run = RunRecording.start(fabric, title);
        runs.add(run);
        return run;
    }

    /** Stops a part's recording and prints its ladder if asked to. */
    private void showLadder(RunRecording run) {
        if (run == null) {
            return;
        }
        run.stop();
        if (options.ladder()) {
            out.println();
            out.print(Ladder.render(run));
        }
    }

    private Fabric fabric(String name) {
        Fabric.Builder b = Fabric.builder().name(name);
        return options.threaded()
                ? b.threaded().seed(options.seed()).build()
                : b.deterministic(options.seed()).build();
    }

    // ------------------------------------------------------------------ part 1: verbs

    private void verbs() {
        out.println("== 1. verbs and the connection manager ==");
        try (Fabric fabric = fabric("demo-verbs")) {
            Device a = fabric.createDevice(DeviceConfig.named("a").maxMtu(Mtu.MTU_1024));
            Device b = fabric.createDevice(DeviceConfig.named("b").maxMtu(Mtu.MTU_1024));
            PacketLog log = new PacketLog(fabric);
            fabric.addTraceListener(log);
            RunRecording run = observe(fabric, "part 1: verbs and the connection manager");
            if (options.loss() > 0) {
                fabric.link(a, b).addFault(FaultRule.drop(PacketMatcher.requests(), options.loss()));
            }
            out.printf(
                    "devices a (GID %s) and b (GID %s), path MTU 1024, %.0f%% of request packets lost%n",
                    a.gid(), b.gid(), options.loss() * 100);

            RdmaCm cm = RdmaCm.of(fabric);
            CmEventChannel chA = cm.createEventChannel();
            CmEventChannel chB = cm.createEventChannel();
            CmId listen = cm.createId(chB, null, PortSpace.TCP);
            listen.bind(RdmaCm.addressOf(b, PORT));
            listen.listen(8);
            CmId client = cm.createId(chA, null, PortSpace.TCP);
            client.bind(RdmaCm.addressOf(a, 0));
            client.resolveAddr(null, RdmaCm.addressOf(b, PORT), 2000);
            expect(chA, CmEventType.ADDR_RESOLVED).ack();
            client.resolveRoute(2000);
            expect(chA, CmEventType.ROUTE_RESOLVED).ack();
            QpInitAttr attr = new QpInitAttr().caps(QpCaps.defaults());
            client.createQp(null, attr);
            client.connect(ConnParam.withPrivateData(ascii("hello from a")));
            CmEvent req = expect(chB, CmEventType.CONNECT_REQUEST);
            CmId server = req.id();
            say(fabric, "b: CONNECT_REQUEST, private data \"" + text(req.privateData()) + "\"");
            server.createQp(null, attr);
            server.accept(ConnParam.withPrivateData(ascii("welcome")));
            req.ack();
            CmEvent est = expect(chA, CmEventType.ESTABLISHED);
            say(
                    fabric,
                    "a: ESTABLISHED, private data \"" + text(est.privateData()) + "\", QPs "
                            + client.qp().qpNum() + " <-> " + server.qp().qpNum());
            est.ack();
            expect(chB, CmEventType.ESTABLISHED).ack();

            QueuePair qa = client.qp();
            QueuePair qb = server.qp();
            EnumSet<AccessFlag> rights = EnumSet.of(
                    AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);
            ByteBuffer bufA = ByteBuffer.allocateDirect(2 * BUF_HALF);
            ByteBuffer bufB = ByteBuffer.allocateDirect(2 * BUF_HALF);
            MemoryRegion mrA = qa.pd().registerMemory(bufA, rights);
            MemoryRegion mrB = qb.pd().registerMemory(bufB, rights);

            // SEND / RECV
            byte[] msg = ascii("Hello over RC, from a to b!");
            bufA.put(0, msg);
            qb.postRecv(new RecvWr().wrId(1).sge(mrB, 0, 256));
            qa.postSend(new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.SEND)
                    .sge(mrA, 0, msg.length)
                    .flag(SendFlag.SIGNALED));
            complete(client.sendCq(), 2);
            WorkCompletion recv = complete(server.recvCq(), 1);
            byte[] got = new byte[recv.byteLen()];
            bufB.get(0, got);
            check(java.util.Arrays.equals(msg, got), "SEND payload differs");
            say(fabric, "SEND " + msg.length + " bytes; b's receive completed with \"" + text(got) + "\"");

            // RDMA WRITE
            fill(bufA, BUF_HALF, BULK, options.seed());
            qa.postSend(new SendWr()
                    .wrId(3)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(mrA, BUF_HALF, BULK)
                    .remote(mrB.address() + BUF_HALF, mrB.rkey())
                    .flag(SendFlag.SIGNALED));
            complete(client.sendCq(), 3);
            check(same(bufA, BUF_HALF, bufB, BUF_HALF, BULK), "RDMA WRITE data differs");
            say(fabric, "RDMA WRITE " + BULK + " bytes (" + BULK / 1024 + " packets) into b's region; verified");

            // RDMA READ
            fill(bufB, 0, BULK, options.seed() + 1);
            qa.postSend(new SendWr()
                    .wrId(4)
                    .opcode(WrOpcode.RDMA_READ)
                    .sge(mrA, 0, BULK)
                    .remote(mrB.address(), mrB.rkey())
                    .flag(SendFlag.SIGNALED));
            complete(client.sendCq(), 4);
            check(same(bufB, 0, bufA, 0, BULK), "RDMA READ data differs");
            say(fabric, "RDMA READ " + BULK + " bytes from b's region; verified");

            // atomic FETCH_ADD
            bufB.putLong(0, 37);
            qa.postSend(new SendWr()
                    .wrId(5)
                    .opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                    .sge(mrA, 0, 8)
                    .remote(mrB.address(), mrB.rkey())
                    .atomic(5, 0)
                    .flag(SendFlag.SIGNALED));
            complete(client.sendCq(), 5);
            check(bufA.getLong(0) == 37 && bufB.getLong(0) == 42, "FETCH_ADD result wrong");
            say(fabric, "FETCH_ADD +5 on b's word: original value 37 returned, word now 42");

            client.disconnect();
            expect(chA, CmEventType.DISCONNECTED).ack();
            expect(chB, CmEventType.DISCONNECTED).ack();
            say(fabric, "disconnected (DREQ/DREP)");

            Map<PacketEvent, Long> counts = log.counts();
            out.printf(
                    "packets: %d sent once, %d sent again by the RC requester, %d lost on the link%n",
                    counts.getOrDefault(PacketEvent.SENT, 0L),
                    counts.getOrDefault(PacketEvent.RETRANSMITTED, 0L),
                    counts.getOrDefault(PacketEvent.DROPPED, 0L));
            out.printf(
                    "a's QP: %d ACK timeouts, %d PSN sequence NAKs received; b's QP: %d duplicate requests answered%n",
                    qa.counters().get(Counter.RETRY_TIMEOUTS),
                    qa.counters().get(Counter.NAK_SEQ_ERR_RECEIVED),
                    qb.counters().get(Counter.DUPLICATE_REQUESTS));

            fabric.removeTraceListener(log);
            mrA.deregister();
            mrB.deregister();
            client.destroyQp();
            server.destroyQp();
            client.destroy();
            server.destroy();
            listen.destroy();
            showLadder(run);
        }
    }

    private static final int BUF_HALF = BULK;

    /**
     * Counts packet events and, with --trace, prints each (and the DAT part's endpoint state
     * changes), stamped with virtual time, or with the time since the part started on a threaded
     * fabric.
     */
    private final class PacketLog implements TraceListener {
        private final Map<PacketEvent, Long> counts = new EnumMap<>(PacketEvent.class);
        private final long start;

        PacketLog(Fabric fabric) {
            this.start = fabric.scheduler().isDeterministic() ? 0 : fabric.now();
        }

        @Override
        public void onStateChange(long time, Device device, String object, String from, String to) {
            if (options.trace()) {
                String line = String.format(
                        "  %12.3f us  %s %s: %s -> %s", (time - start) / 1000.0, device.name(), object, from, to);
                synchronized (out) {
                    out.println(line);
                }
            }
        }

        @Override
        public void onPacket(PacketEvent event, DropReason reason, long time, Device from, Device to, Packet p) {
            synchronized (this) {
                counts.merge(event, 1L, Long::sum);
            }
            if (options.trace()) {
                String aeth = p.opcode().has(HeaderType.AETH) ? "  " + Aeth.describe(p.aethSyndrome()) : "";
                String line = String.format(
                        "  %12.3f us  %-13s %3s -> %-3s %-22s psn %-8d %5d B%s%s",
                        (time - start) / 1000.0,
                        event,
                        from == null ? "" : from.name(),
                        to == null ? "?" : to.name(),
                        p.opcode(),
                        p.psn(),
                        p.payloadLength(),
                        aeth,
                        reason == null ? "" : "  (" + reason + ")");
                synchronized (out) {
                    out.println(line);
                }
            }
        }

        synchronized Map<PacketEvent, Long> counts() {
            return new EnumMap<>(counts);
        }
    }

    private CmEvent expect(CmEventChannel ch, CmEventType type) {
        CmEvent e = ch.getEvent(WAIT_SECONDS, TimeUnit.SECONDS);
        check(e != null, "no " + type + " event within " + WAIT_SECONDS + " s");
        check(e.type() == type, "expected " + type + ", got " + e);
        return e;
    }

    private static WorkCompletion complete(CompletionQueue cq, long wrId) {
        WorkCompletion[] wc = WorkCompletion.array(1);
        check(cq.awaitCompletions(1, WAIT_SECONDS, TimeUnit.SECONDS), "no completion for work request " + wrId);
        check(cq.poll(wc, 1) == 1, "completion vanished");
        check(wc[0].status() == WcStatus.SUCCESS && wc[0].wrId() == wrId, "work request " + wrId + ": " + wc[0]);
        return wc[0];
    }

    // ------------------------------------------------------------------ part 2: DAT

    private void dat() {
        out.println("== 2. DAT 1.2 (uDAPL) on the same kind of fabric ==");
        // The demo builds the fabric and hands it to the provider, so it can trace and capture it.
        Fabric fabric = fabric("demo-dat");
        SimProvider.registerFabric("demo-dat", fabric);
        PacketLog log = new PacketLog(fabric);
        fabric.addTraceListener(log);
        RunRecording run = observe(fabric, "part 2: DAT 1.2 (uDAPL)");
        InterfaceAdapter ia1 = null;
        InterfaceAdapter ia2 = null;
        try {
            ia1 = Dat.openIa("sim:demo-dat/ia1", 8);
            ia2 = Dat.openIa("sim:demo-dat/ia2", 8);
            out.println("opened IAs sim:demo-dat/ia1 and sim:demo-dat/ia2 (provider "
                    + ia1.query().providerAttributes().providerName() + ")");
            ProtectionZone pz1 = ia1.createPz();
            ProtectionZone pz2 = ia2.createPz();
            EventDispatcher dto1 = ia1.createEvd(16, null, EnumSet.of(EvdFlag.DTO));
            EventDispatcher dto2 = ia2.createEvd(16, null, EnumSet.of(EvdFlag.DTO));
            EventDispatcher conn1 = ia1.createEvd(4, null, EnumSet.of(EvdFlag.CONNECTION));
            EventDispatcher conn2 = ia2.createEvd(4, null, EnumSet.of(EvdFlag.CONNECTION, EvdFlag.CR));
            ByteBuffer mem1 = ByteBuffer.allocateDirect(BULK);
            ByteBuffer mem2 = ByteBuffer.allocateDirect(BULK);
            LocalMemoryRegion lmr1 = ia1.createLmr(new RegionDescription.Virtual(mem1), pz1, MemoryPrivilege.all());
            LocalMemoryRegion lmr2 = ia2.createLmr(new RegionDescription.Virtual(mem2), pz2, MemoryPrivilege.all());
            Endpoint ep1 = ia1.createEndpoint(pz1, dto1, dto1, conn1, null);
            Endpoint ep2 = ia2.createEndpoint(pz2, dto2, dto2, conn2, null);
            PublicServicePoint psp = ia2.createPsp(PORT, conn2, PspFlag.CONSUMER);

            ep1.connect(
                    ia2.query().iaAttributes().iaAddress(),
                    PORT,
                    Timeout.ofMillis(10_000),
                    ascii("ia1 calling"),
                    Qos.BEST_EFFORT,
                    EnumSet.noneOf(ConnectFlag.class));
            ConnectionRequestEvent cr = next(conn2, ConnectionRequestEvent.class);
            out.println("ia2: " + cr.eventNumber() + " on qualifier " + cr.connQual() + ", private data \""
                    + text(cr.cr().query().privateData()) + "\"");
            cr.cr().accept(ep2, ascii("ia2 here"));
            ConnectionEvent est = next(conn1, ConnectionEvent.class);
            out.println("ia1: " + est.eventNumber() + ", private data \"" + text(est.privateData()) + "\"");
            out.println("ia2: " + next(conn2, ConnectionEvent.class).eventNumber());

            fill(mem1, 0, BULK, options.seed() + 2);
            ep1.postRdmaWrite(
                    List.of(new LmrTriplet(lmr1.lmrContext(), lmr1.registeredAddress(), BULK)),
                    42,
                    new RmrTriplet(lmr2.rmrContext().orElseThrow(), lmr2.registeredAddress(), BULK),
                    CompletionFlag.defaults());
            DtoCompletionEvent done = next(dto1, DtoCompletionEvent.class);
            check(done.userCookie() == 42, "unexpected cookie " + done.userCookie());
            check(same(mem1, 0, mem2, 0, BULK), "DAT RDMA WRITE data differs");
            out.println("dat_ep_post_rdma_write of " + BULK + " bytes: " + done.status() + ", cookie "
                    + done.userCookie() + "; ia2's memory verified");

            ep1.disconnect(CloseFlag.GRACEFUL);
            out.println("ia1: " + next(conn1, ConnectionEvent.class).eventNumber());
            out.println("ia2: " + next(conn2, ConnectionEvent.class).eventNumber());

            psp.free();
            ep1.free();
            ep2.free();
            lmr1.free();
            lmr2.free();
            dto1.free();
            dto2.free();
            conn1.free();
            conn2.free();
            pz1.free();
            pz2.free();
            ia1.close(CloseFlag.GRACEFUL);
            ia2.close(CloseFlag.GRACEFUL);
            out.println("every DAT object freed; both IAs closed gracefully");
            fabric.removeTraceListener(log);
            showLadder(run);
        } finally {
            closeQuietly(ia1);
            closeQuietly(ia2);
            SimProvider.unregisterFabric("demo-dat");
            fabric.close();
        }
    }

    private static void closeQuietly(InterfaceAdapter ia) {
        if (ia == null) {
            return;
        }
        try {
            ia.close(CloseFlag.ABRUPT);
        } catch (RuntimeException alreadyClosed) {
            // closed gracefully above
        }
    }

    private static <T extends DatEvent> T next(EventDispatcher evd, Class<T> type) {
        EvdWaitResult r = evd.waitForEvent(Timeout.ofMillis(WAIT_SECONDS * 1000), 1);
        check(r.event().isPresent(), "no event within " + WAIT_SECONDS + " s: " + r);
        DatEvent e = r.event().get();
        check(type.isInstance(e), "expected a " + type.getSimpleName() + ", got " + e);
        return type.cast(e);
    }

    // ------------------------------------------------------------------ helpers

    private void say(Fabric fabric, String line) {
        if (options.threaded()) {
            out.println("  " + line);
        } else {
            out.printf("  [%10.3f us] %s%n", fabric.now() / 1000.0, line);
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** The text before the first zero byte (CM private data is zero-padded to its field size). */
    private static String text(byte[] b) {
        int n = 0;
        while (n < b.length && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, StandardCharsets.US_ASCII);
    }

    private static void fill(ByteBuffer buf, int index, int len, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < len; i++) {
            buf.put(index + i, (byte) r.nextInt(256));
        }
    }

    private static boolean same(ByteBuffer x, int xi, ByteBuffer y, int yi, int len) {
        return x.slice(xi, len).equals(y.slice(yi, len));
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new DemoFailure(what);
        }
    }

    /** A check of the demo failed. */
    static final class DemoFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        DemoFailure(String message) {
            super(message);
        }
    }
}

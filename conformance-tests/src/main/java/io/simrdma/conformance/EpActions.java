package io.simrdma.conformance;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.ConnectionRequest;
import io.simrdma.dat.CrParams;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EpModify;
import io.simrdma.dat.EpParams;
import io.simrdma.dat.EpRecvInfo;
import io.simrdma.dat.EpStatus;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.PspParams;
import io.simrdma.dat.PublicServicePoint;
import io.simrdma.dat.Qos;
import io.simrdma.dat.ReservedServicePoint;
import io.simrdma.dat.RspParams;
import io.simrdma.dat.SharedReceiveQueue;
import io.simrdma.dat.Timeout;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Actions on Endpoints and on connection establishment: create (with or without an SRQ), query,
 * status, modify, connect, dup_connect, disconnect, reset, free, watermarks, receive query; PSPs,
 * RSPs and Connection Requests.
 */
final class EpActions {

    private EpActions() {}

    static String attrsJava(EpAttributes a) {
        if (a == null) {
            return "null";
        }
        return "EpAttributes.builder().maxMessageSize(" + a.maxMessageSize() + ").maxRdmaSize(" + a.maxRdmaSize()
                + ").maxRecvDtos(" + a.maxRecvDtos() + ").maxRequestDtos(" + a.maxRequestDtos() + ").maxRecvIov("
                + a.maxRecvIov() + ").maxRequestIov(" + a.maxRequestIov() + ").maxRdmaReadIn(" + a.maxRdmaReadIn()
                + ").maxRdmaReadOut(" + a.maxRdmaReadOut() + ").maxRdmaReadIov(" + a.maxRdmaReadIov()
                + ").maxRdmaWriteIov(" + a.maxRdmaWriteIov() + ").requestCompletionFlags("
                + Java.flags(CompletionFlag.class, a.requestCompletionFlags()) + ").recvCompletionFlags("
                + Java.flags(CompletionFlag.class, a.recvCompletionFlags()) + ").build()";
    }

    /** dat_ep_create, or dat_ep_create_with_srq when {@code srq} is given; then a query for the EP's attributes. */
    record EpCreate(
            String ia, String sym, String pz, String recv, String req, String conn, EpAttributes attrs, String srq)
            implements Action {
        @Override
        public void run(Run r) {
            Model m = r.model;
            M.Ia mia = m.need(ia);
            M.Pz mpz = pz == null ? null : m.need(pz);
            M.Evd er = recv == null ? null : m.need(recv);
            M.Evd eq = req == null ? null : m.need(req);
            M.Evd ec = conn == null ? null : m.need(conn);
            M.Srq ms = srq == null ? null : m.need(srq);
            InterfaceAdapter h = r.live(ia);
            ProtectionZone hpz = pz == null ? null : r.live(pz);
            EventDispatcher hr = recv == null ? null : r.live(recv);
            EventDispatcher hq = req == null ? null : r.live(req);
            EventDispatcher hc = conn == null ? null : r.live(conn);
            SharedReceiveQueue hs = srq == null ? null : r.live(srq);
            boolean withSrq = srq != null;
            Expect e = Rules.epCreate(m, mia, mpz, er, eq, ec, attrs, ms, withSrq);
            String java = ia + (withSrq ? ".createEndpointWithSrq(" : ".createEndpoint(") + pz + ", " + recv + ", "
                    + req + ", " + conn + (withSrq ? ", " + srq : "") + ", " + attrsJava(attrs) + ")";
            Object v = r.call(
                    e,
                    "Endpoint " + sym,
                    java,
                    () -> withSrq
                            ? h.createEndpointWithSrq(hpz, hr, hq, hc, hs, attrs)
                            : h.createEndpoint(hpz, hr, hq, hc, attrs));
            if (v instanceof Endpoint ep) {
                M.Ep me = m.add(new M.Ep(sym, mia, mpz, er, eq, ec, ms));
                r.bind(sym, ep);
                EpParams q = ep.query();
                r.transcript.add("// " + sym + ".query().attributes(): " + q.attributes());
                me.attrs = q.attributes();
                m.observeState(
                        r,
                        me,
                        q.state(),
                        Check.ok(
                                        withSrq ? "dat_ep_create_with_srq" : "dat_ep_create",
                                        "the Endpoint is created in the Unconnected state")
                                .rows("2.1#8"));
                if (attrs != null) {
                    checkAttrs(r, attrs, q.attributes(), withSrq);
                }
            }
        }

        @Override
        public String page() {
            return srq == null ? "dat_ep_create" : "dat_ep_create_with_srq";
        }
    }

    static void checkAttrs(Run r, EpAttributes want, EpAttributes got, boolean withSrq) {
        if (withSrq) {
            Check exact = Check.ok(
                            "dat_ep_create_with_srq",
                            "the EP has exactly the requested max_recv_dtos, "
                                    + "max_message_size, max_rdma_size and RDMA Read limits, and at least the requested request "
                                    + "DTOs and IOV")
                    .rows("5#3");
            boolean ok = got.maxRecvDtos() == want.maxRecvDtos()
                    && got.maxMessageSize() == want.maxMessageSize()
                    && got.maxRdmaSize() == want.maxRdmaSize()
                    && got.maxRdmaReadIn() == want.maxRdmaReadIn()
                    && got.maxRdmaReadOut() == want.maxRdmaReadOut()
                    && got.maxRequestDtos() >= want.maxRequestDtos()
                    && got.maxRequestIov() >= want.maxRequestIov();
            r.check(exact, ok, want.toString(), got::toString);
            return;
        }
        Check atLeast = Check.ok("dat_ep_create", "the created EP has at least the requested sizes and counts")
                .choice("dat_ep_create states no rule; dat_ep_create_with_srq gives at least or exactly the request");
        boolean ok = got.maxRecvDtos() >= want.maxRecvDtos()
                && got.maxRequestDtos() >= want.maxRequestDtos()
                && got.maxMessageSize() >= want.maxMessageSize()
                && got.maxRdmaSize() >= want.maxRdmaSize()
                && got.maxRecvIov() >= want.maxRecvIov()
                && got.maxRequestIov() >= want.maxRequestIov()
                && got.requestCompletionFlags().equals(want.requestCompletionFlags())
                && got.recvCompletionFlags().equals(want.recvCompletionFlags());
        r.check(atLeast, ok, want.toString(), got::toString);
    }

    record EpQuery(String ep) implements Action {
        @Override
        public void run(Run r) {
            M.Ep m = r.model.need(ep);
            if (m.undefined) {
                throw Skip.INSTANCE;
            }
            Endpoint h = r.live(ep);
            Object v = r.call(Rules.epQuery(r.model, m), "EpParams p" + r.index, ep + ".query()", h::query);
            if (v instanceof EpParams q) {
                checkParams(r, m, q);
            }
        }

        @Override
        public String page() {
            return "dat_ep_query";
        }
    }

    static void checkParams(Run r, M.Ep m, EpParams q) {
        r.model.observeState(
                r,
                m,
                q.state(),
                Check.ok("dat_ep_query", "the EP's state is one its history allows")
                        .rows(Rules.queryRow(q.state())));
        Check c = Check.ok("dat_ep_query", "returns the EP's IA, PZ, EVDs, SRQ and attributes");
        if (m.srq != null) {
            // dat_ep_create_with_srq: the SRQ stays bound until dat_ep_free (dat_ep_reset keeps it), row 5#5
            c = c.rows("5#5");
        }
        String want = "pz " + m.pz + ", recv " + m.recvEvd + ", request " + m.reqEvd + ", connect " + m.connEvd
                + ", srq " + m.srq;
        String got = "pz " + q.pz().map(r::symOf).orElse(null) + ", recv "
                + q.recvEvd().map(r::symOf).orElse(null)
                + ", request " + q.requestEvd().map(r::symOf).orElse(null) + ", connect "
                + q.connectEvd().map(r::symOf).orElse(null) + ", srq "
                + q.srq().map(r::symOf).orElse(null);
        r.check(c, want.equals(got) && q.ia() == r.live(m.ia.sym), want, () -> got);
        if (m.attrs != null) {
            r.check(
                    c,
                    q.attributes().equals(m.attrs),
                    m.attrs.toString(),
                    () -> q.attributes().toString());
        }
        if (q.state() == EndpointState.CONNECTED && m.peer != null && !m.wild) {
            SocketAddress peer = m.peer.ia.address;
            r.check(
                    Check.ok("dat_ep_query", "a connected EP reports the remote IA address"),
                    q.remoteIaAddress().isPresent() && q.remoteIaAddress().get().equals(peer),
                    String.valueOf(peer),
                    () -> q.remoteIaAddress().toString());
        }
    }

    record EpGetStatus(String ep) implements Action {
        @Override
        public void run(Run r) {
            M.Ep m = r.model.need(ep);
            if (m.undefined) {
                throw Skip.INSTANCE;
            }
            Endpoint h = r.live(ep);
            Object v = r.call(Rules.epStatus(r.model, m), "EpStatus s" + r.index, ep + ".status()", h::status);
            if (v instanceof EpStatus s) {
                r.model.observeState(
                        r,
                        m,
                        s.state(),
                        Check.ok("dat_ep_get_status", "returns the EP's state").rows(Rules.queryRow(s.state())));
                if (m.wild) {
                    return;
                }
                Check idle =
                        Check.ok("dat_ep_get_status", "recv_idle and request_idle say whether DTOs are outstanding");
                boolean anyRecv = false;
                boolean surelyRecv = false;
                for (M.Work w : m.recvs) {
                    if (!w.done) {
                        anyRecv = true;
                        surelyRecv |= w.peer == null
                                && !w.certain
                                && w.possible.contains(io.simrdma.dat.DtoCompletionStatus.SUCCESS)
                                && m.srq == null;
                    }
                }
                boolean anyReq = false;
                boolean surelyReq = false;
                for (M.Work w : m.requests) {
                    if (!w.done) {
                        anyReq = true;
                        surelyReq |= m.peer != null && m.peer.waitingSends.contains(w);
                    }
                }
                boolean recvIdle = s.recvIdle();
                boolean reqIdle = s.requestIdle();
                r.check(
                        idle,
                        !(surelyRecv && recvIdle) && (anyRecv || recvIdle),
                        surelyRecv ? "receives outstanding" : !anyRecv ? "recv idle" : "either",
                        () -> "recvIdle " + recvIdle);
                r.check(
                        idle,
                        !(surelyReq && reqIdle) && (anyReq || reqIdle),
                        surelyReq ? "requests outstanding" : !anyReq ? "request idle" : "either",
                        () -> "requestIdle " + reqIdle);
            }
        }

        @Override
        public String page() {
            return "dat_ep_get_status";
        }
    }

    record EpFree(String ep) implements Action {
        @Override
        public void run(Run r) {
            M.Ep m = r.model.need(ep);
            if (m.undefined) {
                throw Skip.INSTANCE;
            }
            Endpoint h = r.live(ep);
            r.call(Rules.epFree(r.model, m), null, ep + ".free()", () -> {
                h.free();
                return null;
            });
        }

        @Override
        public String page() {
            return "dat_ep_free";
        }
    }

    record EpReset(String ep) implements Action {
        @Override
        public void run(Run r) {
            M.Ep m = r.model.need(ep);
            if (m.undefined) {
                throw Skip.INSTANCE;
            }
            Endpoint h = r.live(ep);
            r.call(Rules.epReset(r.model, m), null, ep + ".reset()", () -> {
                h.reset();
                return null;
            });
        }

        @Override
        public String page() {
            return "dat_ep_reset";
        }
    }

    record EpDisconnect(String ep, CloseFlag flag) implements Action {
        @Override
        public void run(Run r) {
            M.Ep m = r.model.need(ep);
            if (m.undefined) {
                throw Skip.INSTANCE;
            }
            Endpoint h = r.live(ep);
            if (Boolean.getBoolean("conform.debug")) {
                r.transcript.add("// model: " + m.sym + " " + m.state + " pending " + m.pending.size() + " "
                        + (m.pending.isEmpty() ? "" : m.pending.get(0).viable()) + " conn " + (m.conn != null)
                        + " accepted " + (m.conn != null && m.conn.accepted) + " may " + m.possibleStates());
            }
            r.call(
                    Rules.epDisconnect(r.model, m, flag),
                    null,
                    ep + ".disconnect(" + (flag == null ? "null" : "CloseFlag." + flag.name()) + ")",
                    () -> {
                        h.disconnect(flag);
                        return null;
                    });
        }

        @Override
        public String page() {
            return "dat_ep_disconnect";
        }
    }

    /** Private data of {@code n} bytes of pattern {@code seed} (n &lt; 0: null). */
    static byte[] pdata(int n, int seed) {
        return n < 0 ? null : Patterns.bytes(n, seed);
    }

    static String pdataJava(int n, int seed) {
        return n < 0 ? "null" : "bytes(" + n + ", " + seed + ")";
    }

    /**
     * dat_ep_connect to the IA {@code target} (null: an address no IA has) on {@code qual}, with
     * {@code pdataLen} bytes of private data; {@code zeroTimeout} gives the invalid timeout 0, else the timeout is
     * {@code timeoutMillis} ms, or DAT_TIMEOUT_INFINITE if that is not positive.
     */
    record EpConnect(
            String ep,
            String target,
            long qual,
            int pdataLen,
            int seed,
            boolean zeroTimeout,
            Qos qos,
            boolean multipath,
            long timeoutMillis)
            implements Action {

        /** A connect with DAT_TIMEOUT_INFINITE (or the invalid 0). */
        EpConnect(
                String ep,
                String target,
                long qual,
                int pdataLen,
                int seed,
                boolean zeroTimeout,
                Qos qos,
                boolean multipath) {
            this(ep, target, qual, pdataLen, seed, zeroTimeout, qos, multipath, 0);
        }

        private Timeout timeout() {
            return zeroTimeout ? Timeout.ZERO : timeoutMillis > 0 ? Timeout.ofMillis(timeoutMillis) : Timeout.INFINITE;
        }

        private String timeoutJava() {
            return zeroTimeout
                    ? "Timeout.ZERO"
                    : timeoutMillis > 0 ? "Timeout.ofMillis(" + timeoutMillis + ")" : "Timeout.INFINITE";
        }

        @Override
        public void run(Run r) {
            M.Ep m = r.model.need(ep);
            if (m.undefined) {
                throw Skip.INSTANCE;
            }
            M.Ia t = target == null ? null : r.model.need(target);
            Endpoint h = r.live(ep);
            SocketAddress addr = t == null ? new InetSocketAddress("127.0.0.1", 1) : t.address;
            String addrJava = t == null ? "new InetSocketAddress(\"127.0.0.1\", 1)" : "addr" + t.index;
            byte[] pd = pdata(pdataLen, seed);
            Timeout to = timeout();
            Set<ConnectFlag> flags = multipath ? EnumSet.of(ConnectFlag.MULTIPATH) : EnumSet.noneOf(ConnectFlag.class);
            Expect e = Rules.epConnect(r.model, m, t, t == null, qual, to.micros(), pd, qos, multipath);
            r.call(
                    e,
                    null,
                    ep + ".connect(" + addrJava + ", " + qual + ", " + timeoutJava() + ", "
                            + pdataJava(pdataLen, seed) + ", Qos." + qos.name() + ", "
                            + Java.flags(ConnectFlag.class, flags)
                            + ")",
                    () -> {
                        h.connect(addr, qual, to, pd, qos, flags);
                        return null;
                    });
        }

        @Override
        public String page() {
            return "dat_ep_connect";
        }

        @Override
        public List<Action> simpler() {
            List<Action> l = new ArrayList<>();
            if (pdataLen > 0) {
                l.add(new EpConnect(ep, target, qual, 0, seed, zeroTimeout, qos, multipath, timeoutMillis));
            }
            if (multipath) {
                l.add(new EpConnect(ep, target, qual, pdataLen, seed, zeroTimeout, qos, false, timeoutMillis));
            }
            return l;
        }
    }

    /**
     * Lets the fabric run {@code ms} (virtual time, {@link EvdActions.Settle}) after {@code ep} connected with a
     * finite timeout of at most {@code ms} to a service point whose consumer got the request and neither accepted nor
     * rejected it: the connect's timeout has expired, and the model makes its end certain
     * ({@link Rules#connectTimeoutPassed}; dat_ep_connect(3DAT) DAT_CONNECTION_EVENT_TIMED_OUT, row 2.5#5). Only on
     * the deterministic fabric without faults: elsewhere a settle is capped real time (the timeout need not have
     * passed), and a lost packet may leave the provider unsure whether the remote host responded at all (S9, where
     * UNREACHABLE is as good a reading); there the action only lets time pass and the model keeps both ends open.
     */
    record ConnectTimeoutPasses(String ep, long ms) implements Action {
        @Override
        public void run(Run r) {
            M.Ep x = r.model.need(ep);
            new EvdActions.Settle(ms).run(r);
            if (r.settings.deterministic()
                    && !FaultProfile.faulty(r.settings.iaTemplate())
                    && Rules.connectTimeoutPassed(x, ms * 1000, r.settings.strict())) {
                r.transcript.add("// dat_ep_connect(3DAT): " + ep + "'s timeout has expired, its request unanswered");
            }
        }

        @Override
        public String page() {
            return "dat_ep_connect";
        }
    }

    record EpDupConnect(String ep, String dup, int pdataLen, int seed, Qos qos) implements Action {
        @Override
        public void run(Run r) {
            M.Ep m = r.model.need(ep);
            M.Ep d = r.model.need(dup);
            if (m.undefined || d.undefined) {
                throw Skip.INSTANCE;
            }
            Endpoint h = r.live(ep);
            Endpoint hd = r.live(dup);
            byte[] pd = pdata(pdataLen, seed);
            r.call(
                    Rules.epDupConnect(r.model, m, d, Timeout.INFINITE.micros(), pd, qos),
                    null,
                    ep + ".dupConnect(" + dup + ", Timeout.INFINITE, " + pdataJava(pdataLen, seed) + ", Qos."
                            + qos.name() + ")",
                    () -> {
                        h.dupConnect(hd, Timeout.INFINITE, pd, qos);
                        return null;
                    });
        }

        @Override
        public String page() {
            return "dat_ep_dup_connect";
        }
    }

    /** What an {@link EpModifyAction} changes. */
    enum ModKind {
        PZ,
        RECV_EVD,
        REQUEST_EVD,
        CONNECT_EVD,
        MAX_RECV_DTOS,
        MAX_REQUEST_DTOS,
        REQUEST_FLAGS,
        RECV_FLAGS,
        MAX_MESSAGE_SIZE
    }

    /** dat_ep_modify of one field: a handle ({@code handle}, may be null) or a number ({@code value}). */
    record EpModifyAction(String ep, ModKind kind, String handle, long value) implements Action {
        @Override
        public void run(Run r) {
            M.Ep m = r.model.need(ep);
            if (m.undefined) {
                throw Skip.INSTANCE;
            }
            Endpoint h = r.live(ep);
            M.Obj arg = handle == null ? null : r.model.need(handle);
            Object harg = handle == null ? null : r.live(handle);
            EpModify.Builder b = EpModify.builder();
            String java;
            boolean bad = false;
            Rules.ModField f;
            switch (kind) {
                case PZ -> {
                    b.pz((ProtectionZone) harg);
                    java = ".pz(" + handle + ")";
                    f = Rules.ModField.PZ;
                }
                case RECV_EVD, REQUEST_EVD, CONNECT_EVD -> {
                    EventDispatcher evd = (EventDispatcher) harg;
                    if (kind == ModKind.RECV_EVD) {
                        b.recvEvd(evd);
                    } else if (kind == ModKind.REQUEST_EVD) {
                        b.requestEvd(evd);
                    } else {
                        b.connectEvd(evd);
                    }
                    java = "."
                            + (kind == ModKind.RECV_EVD
                                    ? "recvEvd"
                                    : kind == ModKind.REQUEST_EVD ? "requestEvd" : "connectEvd")
                            + "(" + handle + ")";
                    f = Rules.ModField.EVD;
                }
                case MAX_RECV_DTOS -> {
                    b.maxRecvDtos((int) value);
                    java = ".maxRecvDtos(" + value + ")";
                    bad = value > m.ia.attrs.maxDtoPerEp();
                    f = Rules.ModField.ATTRIBUTE;
                }
                case MAX_REQUEST_DTOS -> {
                    b.maxRequestDtos((int) value);
                    java = ".maxRequestDtos(" + value + ")";
                    bad = value > m.ia.attrs.maxDtoPerEp();
                    f = Rules.ModField.ATTRIBUTE;
                }
                case MAX_MESSAGE_SIZE -> {
                    b.maxMessageSize(value);
                    java = ".maxMessageSize(" + value + "L)";
                    bad = value > m.ia.attrs.maxMessageSize();
                    f = Rules.ModField.ATTRIBUTE;
                }
                case REQUEST_FLAGS -> {
                    Set<CompletionFlag> fl =
                            value == 0 ? EnumSet.noneOf(CompletionFlag.class) : EnumSet.of(CompletionFlag.UNSIGNALLED);
                    b.requestCompletionFlags(fl);
                    java = ".requestCompletionFlags(" + Java.flags(CompletionFlag.class, fl) + ")";
                    f = Rules.ModField.ATTRIBUTE;
                }
                default -> {
                    Set<CompletionFlag> fl =
                            value == 0 ? EnumSet.noneOf(CompletionFlag.class) : EnumSet.of(CompletionFlag.UNSIGNALLED);
                    b.recvCompletionFlags(fl);
                    java = ".recvCompletionFlags(" + Java.flags(CompletionFlag.class, fl) + ")";
                    f = Rules.ModField.RECV_FLAGS;
                }
            }
            EpModify mod = b.build();
            boolean badValue = bad;
            M.Evd newRecv = kind == ModKind.RECV_EVD ? (M.Evd) arg : m.recvEvd;
            M.Evd newReq = kind == ModKind.REQUEST_EVD ? (M.Evd) arg : m.reqEvd;
            EpAttributes newAttrs = m.attrs == null ? null : mod.applyTo(m.attrs);
            Expect e = Rules.epModify(
                    r.model, m, f, badValue, arg, () -> apply(r.model, m, arg), newRecv, newReq, newAttrs);
            r.call(e, null, ep + ".modify(EpModify.builder()" + java + ".build())", () -> {
                h.modify(mod);
                return null;
            });
        }

        private void apply(Model model, M.Ep m, M.Obj arg) {
            EpAttributes.Builder a = m.attrs == null ? null : m.attrs.toBuilder();
            switch (kind) {
                case PZ -> {
                    m.pz = (M.Pz) arg;
                    Rules.pzChanged(model, m);
                }
                case RECV_EVD -> {
                    reroute(m.recvEvd, (M.Evd) arg, !m.recvs.isEmpty());
                    m.recvEvd = (M.Evd) arg;
                }
                case REQUEST_EVD -> {
                    reroute(m.reqEvd, (M.Evd) arg, !m.requests.isEmpty());
                    m.reqEvd = (M.Evd) arg;
                }
                case CONNECT_EVD -> {
                    reroute(m.connEvd, (M.Evd) arg, !m.pending.isEmpty() || !m.arrived.isEmpty());
                    m.connEvd = (M.Evd) arg;
                }
                case MAX_RECV_DTOS -> a.maxRecvDtos((int) value);
                case MAX_REQUEST_DTOS -> a.maxRequestDtos((int) value);
                case MAX_MESSAGE_SIZE -> a.maxMessageSize(value);
                case REQUEST_FLAGS ->
                    a.requestCompletionFlags(
                            value == 0 ? EnumSet.noneOf(CompletionFlag.class) : EnumSet.of(CompletionFlag.UNSIGNALLED));
                default ->
                    a.recvCompletionFlags(
                            value == 0 ? EnumSet.noneOf(CompletionFlag.class) : EnumSet.of(CompletionFlag.UNSIGNALLED));
            }
            if (a != null) {
                m.attrs = a.build();
            }
        }

        /** Events already on their way when a stream moves may land on either EVD. */
        private static void reroute(M.Evd old, M.Evd now, boolean busy) {
            if (busy && old != now) {
                if (old != null) {
                    old.unreliable = true;
                }
                if (now != null) {
                    now.unreliable = true;
                }
            }
        }

        @Override
        public String page() {
            return "dat_ep_modify";
        }
    }

    record EpSetWatermark(String ep, int soft, int hard) implements Action {
        @Override
        public void run(Run r) {
            M.Ep m = r.model.need(ep);
            if (m.undefined) {
                throw Skip.INSTANCE;
            }
            Endpoint h = r.live(ep);
            r.call(Rules.epSetWatermark(m, soft, hard), null, ep + ".setWatermark(" + soft + ", " + hard + ")", () -> {
                h.setWatermark(soft, hard);
                return null;
            });
        }

        @Override
        public String page() {
            return "dat_ep_set_watermark";
        }
    }

    record EpRecvQuery(String ep) implements Action {
        @Override
        public void run(Run r) {
            M.Ep m = r.model.need(ep);
            if (m.undefined) {
                throw Skip.INSTANCE;
            }
            Endpoint h = r.live(ep);
            Object v = r.call(Rules.epRecvQuery(m), null, ep + ".recvQuery()", h::recvQuery);
            if (v instanceof EpRecvInfo i && !m.wild && m.srq == null && m.recvEvd != null) {
                int sure = 0;
                int any = 0;
                // a pending step to DISCONNECTED (a connect nobody answers, rejected or refused) may have happened
                // already: "remote consumer rejects / nobody listens on the qualifier ... -> DISCONNECTED"
                // (ep-state-machine.md 2.5) and the EP's receives are then flushed ("flushed receives on recv_evd"),
                // i.e. completed: "nbufs_allocated ... the number of buffers allocated to ep_handle but not yet
                // completed" (dat_ep_recv_query) may already be 0
                boolean mayEnd = false;
                for (M.Slot slot : m.pending) {
                    for (M.Step st : slot.viable()) {
                        mayEnd |= st.to == EndpointState.DISCONNECTED;
                    }
                }
                for (M.Work w : m.recvs) {
                    if (!w.done) {
                        any++;
                        // held for sure: nothing can complete it yet (no message for it, and no end of the
                        // connection or other error that could flush it has been allowed for)
                        if (!mayEnd
                                && w.peer == null
                                && !w.certain
                                && w.possible.equals(EnumSet.of(DtoCompletionStatus.SUCCESS))) {
                            sure++;
                        }
                    }
                }
                int n = i.nbufsAllocated();
                int lo = sure;
                int hi = any;
                r.check(
                        Check.ok(
                                        "dat_ep_recv_query",
                                        "nbufs_allocated counts the receives the EP holds whose completions "
                                                + "are not yet generated (or DAT_VALUE_UNKNOWN)")
                                .rows("5#16"),
                        n == io.simrdma.dat.Dat.VALUE_UNKNOWN || n >= lo && n <= hi,
                        lo + ".." + hi,
                        () -> Integer.toString(n));
            }
        }

        @Override
        public String page() {
            return "dat_ep_recv_query";
        }
    }

    // ------------------------------------------------------------------ PSP, RSP, CR

    record PspCreate(String ia, String sym, long qual, String evd, PspFlag flag, boolean any) implements Action {
        @Override
        public void run(Run r) {
            M.Ia m = r.model.need(ia);
            M.Evd me = evd == null ? null : r.model.need(evd);
            InterfaceAdapter h = r.live(ia);
            EventDispatcher he = evd == null ? null : r.live(evd);
            Expect e = Rules.pspCreate(r.model, m, qual, me, flag, any);
            String f = flag == null ? "null" : "PspFlag." + flag.name();
            Object v = r.call(
                    e,
                    "PublicServicePoint " + sym,
                    any
                            ? ia + ".createPspAny(" + evd + ", " + f + ")"
                            : ia + ".createPsp(" + qual + ", " + evd + ", " + f + ")",
                    () -> any ? h.createPspAny(he, flag) : h.createPsp(qual, he, flag));
            if (v instanceof PublicServicePoint psp) {
                long q = any ? psp.connQual() : qual;
                if (any) {
                    r.check(
                            Check.ok("dat_psp_create_any", "the qualifier the provider picks is unused"),
                            !Rules.qualInUse(m, q),
                            "an unused qualifier",
                            () -> Long.toString(q));
                }
                M.Psp mp = r.model.add(new M.Psp(sym, m, q, me, flag, any));
                r.bind(sym, psp);
                Rules.lateListener(r.model, mp, me);
            }
        }

        @Override
        public String page() {
            return any ? "dat_psp_create_any" : "dat_psp_create";
        }
    }

    record SpQuery(String sp) implements Action {
        @Override
        public void run(Run r) {
            M.Obj m = r.model.need(sp);
            Object v;
            if (m instanceof M.Psp p) {
                PublicServicePoint h = r.live(sp);
                v = r.call(Rules.spQuery(m), null, sp + ".query()", h::query);
                if (v instanceof PspParams q) {
                    r.check(
                            Check.ok("dat_psp_query", "returns the PSP's IA, qualifier, EVD and flag"),
                            q.connQual() == p.qual
                                    && q.evd() == r.live(p.evd.sym)
                                    && q.flag() == p.flag
                                    && q.ia() == r.live(p.ia.sym),
                            p.qual + " " + p.evd + " " + p.flag,
                            q::toString);
                }
            } else {
                M.Rsp p = (M.Rsp) m;
                ReservedServicePoint h = r.live(sp);
                v = r.call(Rules.spQuery(m), null, sp + ".query()", h::query);
                if (v instanceof RspParams q) {
                    r.check(
                            Check.ok("dat_rsp_query", "returns the RSP's IA, qualifier, EVD and EP"),
                            q.connQual() == p.qual
                                    && q.evd() == r.live(p.evd.sym)
                                    && q.ep() == r.live(p.ep.sym)
                                    && q.ia() == r.live(p.ia.sym),
                            p.qual + " " + p.evd + " " + p.ep,
                            q::toString);
                }
            }
        }

        @Override
        public String page() {
            return "dat_psp_query";
        }
    }

    record SpFree(String sp) implements Action {
        @Override
        public void run(Run r) {
            M.Obj m = r.model.need(sp);
            io.simrdma.dat.ServicePoint h = r.live(sp);
            Expect e = m instanceof M.Psp p ? Rules.pspFree(r.model, p) : Rules.rspFree(r.model, (M.Rsp) m);
            r.call(e, null, sp + ".free()", () -> {
                h.free();
                return null;
            });
        }

        @Override
        public String page() {
            return "dat_psp_free";
        }
    }

    record RspCreate(String ia, String sym, long qual, String ep, String evd) implements Action {
        @Override
        public void run(Run r) {
            M.Ia m = r.model.need(ia);
            M.Ep mep = ep == null ? null : r.model.need(ep);
            M.Evd me = evd == null ? null : r.model.need(evd);
            if (mep != null && mep.undefined) {
                throw Skip.INSTANCE;
            }
            InterfaceAdapter h = r.live(ia);
            Endpoint hep = ep == null ? null : r.live(ep);
            EventDispatcher he = evd == null ? null : r.live(evd);
            Object v = r.call(
                    Rules.rspCreate(r.model, m, qual, mep, me),
                    "ReservedServicePoint " + sym,
                    ia + ".createRsp(" + qual + ", " + ep + ", " + evd + ")",
                    () -> h.createRsp(qual, hep, he));
            if (v instanceof ReservedServicePoint rsp) {
                M.Rsp mr = r.model.add(new M.Rsp(sym, m, qual, mep, me));
                mep.rsp = mr;
                r.bind(sym, rsp);
                Rules.lateListener(r.model, mr, me);
            }
        }

        @Override
        public String page() {
            return "dat_rsp_create";
        }
    }

    record CrQuery(String cr) implements Action {
        @Override
        public void run(Run r) {
            M.Cr m = r.model.need(cr);
            ConnectionRequest h = r.live(cr);
            Object v = r.call(Rules.crQuery(m), "CrParams cp" + r.index, cr + ".query()", h::query);
            if (v instanceof CrParams q) {
                M.Conn conn = m.conn;
                Check pd = Check.ok("dat_cr_query", "the request carries the entire private data of dat_ep_connect")
                        .and("dat_evd_dequeue", DatReturnType.SUCCESS);
                r.check(
                        pd,
                        Arrays.equals(q.privateData(), conn.privateData),
                        conn.privateData.length + " bytes " + Java.hex(conn.privateData),
                        () -> q.privateDataSize() + " bytes " + Java.hex(q.privateData()));
                r.check(
                        Check.ok("dat_cr_query", "the request names the requester's IA address"),
                        q.remoteIaAddress().equals(conn.active.ia.address),
                        String.valueOf(conn.active.ia.address),
                        () -> String.valueOf(q.remoteIaAddress()));
                if (m.providerEp != null) {
                    r.check(
                            Check.ok("dat_psp_create", "a request of a DAT_PSP_PROVIDER PSP comes with a provider EP")
                                    .rows("2.4#1"),
                            q.localEp().isPresent(),
                            "a local EP",
                            () -> "none");
                    if (!r.has(m.providerEp.sym)) {
                        Endpoint pe = q.localEp().get();
                        r.bind(m.providerEp.sym, pe);
                        r.transcript.add(
                                "Endpoint " + m.providerEp.sym + " = cp" + r.index + ".localEp().orElseThrow();");
                        EpParams pq = pe.query();
                        m.providerEp.attrs = pq.attributes();
                        r.check(
                                Check.ok(
                                                "dat_psp_create",
                                                "the provider EP has a DAT_HANDLE_NULL PZ and EVDs and is "
                                                        + "TENTATIVE_CONNECTION_PENDING")
                                        .rows("2.4#1"),
                                pq.pz().isEmpty()
                                        && pq.connectEvd().isEmpty()
                                        && pq.recvEvd().isEmpty()
                                        && pq.requestEvd().isEmpty(),
                                "no PZ and no EVDs",
                                pq::toString);
                        r.model.observeState(
                                r,
                                m.providerEp,
                                pq.state(),
                                Check.ok("dat_psp_create", "the provider EP is TENTATIVE_CONNECTION_PENDING")
                                        .rows("2.4#1"));
                    }
                } else if (m.sp instanceof M.Psp) {
                    r.check(
                            Check.ok("dat_cr_query", "a request of a DAT_PSP_CONSUMER PSP names no local EP"),
                            q.localEp().isEmpty(),
                            "none",
                            () -> q.localEp().map(r::symOf).orElse(null));
                }
            }
        }

        @Override
        public String page() {
            return "dat_cr_query";
        }
    }

    record CrAccept(String cr, String ep, int pdataLen, int seed) implements Action {
        @Override
        public void run(Run r) {
            M.Cr m = r.model.need(cr);
            M.Ep me = ep == null ? null : r.model.need(ep);
            if (me != null && me.undefined) {
                throw Skip.INSTANCE;
            }
            ConnectionRequest h = r.live(cr);
            Endpoint he = ep == null ? null : r.live(ep);
            byte[] pd = pdata(pdataLen, seed);
            r.call(
                    Rules.crAccept(r.model, m, me, pd),
                    null,
                    cr + ".accept(" + ep + ", " + pdataJava(pdataLen, seed) + ")",
                    () -> {
                        h.accept(he, pd);
                        return null;
                    });
        }

        @Override
        public String page() {
            return "dat_cr_accept";
        }

        @Override
        public List<Action> simpler() {
            return pdataLen > 0 ? List.of(new CrAccept(cr, ep, 0, seed)) : List.of();
        }
    }

    record CrReject(String cr) implements Action {
        @Override
        public void run(Run r) {
            M.Cr m = r.model.need(cr);
            ConnectionRequest h = r.live(cr);
            r.call(Rules.crReject(r.model, m), null, cr + ".reject()", () -> {
                h.reject();
                return null;
            });
        }

        @Override
        public String page() {
            return "dat_cr_reject";
        }
    }

    record CrHandoff(String cr, long qual) implements Action {
        @Override
        public void run(Run r) {
            M.Cr m = r.model.need(cr);
            ConnectionRequest h = r.live(cr);
            r.call(Rules.crHandoff(r.model, m, qual), null, cr + ".handoff(" + qual + ")", () -> {
                h.handoff(qual);
                return null;
            });
        }

        @Override
        public String page() {
            return "dat_cr_handoff";
        }
    }
}

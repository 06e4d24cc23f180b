package io.simrdma.conformance;

import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.HandleType;
import io.simrdma.dat.IaAttributes;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.ProviderAttributes;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.Timeout;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The objects of the reference model: what the man pages say each DAT object is, independently of
 * any provider's code. {@link Model} holds them and makes the predictions; the classes here are the
 * state. Each object is named by the symbol ({@code ep3}) the action sequence uses for it.
 *
 * <p>Thread safety: not thread-safe; one run's thread owns its model.
 */
final class M {

    private M() {}

    /** What every DAT object has: a symbol, a handle type, its IA, whether it exists, a consumer context. */
    abstract static class Obj {
        final String sym;
        final HandleType type;
        final Ia ia;
        boolean alive = true;
        Object context;

        Obj(String sym, HandleType type, Ia ia) {
            this.sym = sym;
            this.type = type;
            this.ia = ia;
        }

        /** Alive and on an open IA: a handle the provider must still accept. */
        boolean live() {
            return alive && (ia == null || ia.alive);
        }

        @Override
        public String toString() {
            return sym;
        }
    }

    /** An Interface Adapter. */
    static final class Ia extends Obj {
        final int index;
        final String name;
        IaAttributes attrs;
        ProviderAttributes providerAttrs;
        SocketAddress address;
        Evd asyncEvd;
        Evd clock;
        final List<Obj> objects = new ArrayList<>();

        Ia(String sym, int index, String name) {
            super(sym, HandleType.IA, null);
            this.index = index;
            this.name = name;
        }

        int maxPrivateData() {
            return providerAttrs.maxPrivateDataSize();
        }

        /** Objects the consumer created that still exist (what blocks a graceful dat_ia_close). */
        List<Obj> consumerObjects() {
            List<Obj> l = new ArrayList<>();
            for (Obj o : objects) {
                if (o.alive && o != asyncEvd && !(o instanceof Cr) && !(o instanceof Ep ep && ep.providerCreated)) {
                    l.add(o);
                }
            }
            return l;
        }
    }

    /** A Protection Zone. */
    static final class Pz extends Obj {
        Pz(String sym, Ia ia) {
            super(sym, HandleType.PZ, ia);
        }
    }

    /**
     * Consumer memory (a ByteBuffer) and what it should hold: the shadow bytes, and for each byte
     * whether the model knows it (a byte two in-flight transfers race for is unknown).
     */
    static final class Mem {
        final String sym;
        final byte[] shadow;
        final boolean[] known;
        final boolean direct;

        Mem(String sym, int size, boolean direct) {
            this.sym = sym;
            this.shadow = new byte[size];
            this.known = new boolean[size];
            this.direct = direct;
            java.util.Arrays.fill(known, true);
        }

        /** A work on a stream without an EVD may write here at any time: nothing in it is known again. */
        boolean tainted;

        void write(int off, byte[] data, int from, int len) {
            System.arraycopy(data, from, shadow, off, len);
            java.util.Arrays.fill(known, off, off + len, !tainted);
        }

        void taint() {
            tainted = true;
            java.util.Arrays.fill(known, false);
        }

        void forget(int off, int len) {
            java.util.Arrays.fill(known, off, off + len, false);
        }

        /** The shadow bytes of a range, or null if any is unknown. */
        byte[] read(int off, int len) {
            for (int i = off; i < off + len; i++) {
                if (!known[i]) {
                    return null;
                }
            }
            return java.util.Arrays.copyOfRange(shadow, off, off + len);
        }
    }

    /** A Local Memory Region over {@code len} bytes of {@link Mem} {@code mem} from {@code memOff}. */
    static final class Lmr extends Obj {
        final Pz pz;
        final Mem mem;
        final int memOff;
        final int len;
        final Set<MemoryPrivilege> privs;
        int lmrContext;
        Integer rmrContext;
        long regAddr;
        long regSize;
        final Lmr source;
        /** Its memory is a read-only buffer (an LMR over it shares that memory: dat_lmr_create, USAGE). */
        boolean readOnly;

        Lmr(String sym, Ia ia, Pz pz, Mem mem, int memOff, int len, Set<MemoryPrivilege> privs, Lmr source) {
            super(sym, HandleType.LMR, ia);
            this.pz = pz;
            this.mem = mem;
            this.memOff = memOff;
            this.len = len;
            this.privs = privs;
            this.source = source;
        }

        boolean has(MemoryPrivilege p) {
            return privs.contains(p);
        }
    }

    /** A binding of an RMR: a range of an LMR with remote privileges, named by a context. */
    record Binding(Lmr lmr, long off, long len, Set<MemoryPrivilege> privs, int context) {}

    /** A Remote Memory Region. */
    static final class Rmr extends Obj {
        final Pz pz;
        /** The binding the last completed bind made (null: unbound). */
        Binding binding;
        /** A posted bind whose completion was not yet seen, and the binding it makes (null: unbind). */
        Work pendingBind;
        /** Contexts earlier binds returned: remote use must fail. */
        final Set<Integer> stale = new java.util.HashSet<>();

        Rmr(String sym, Ia ia, Pz pz) {
            super(sym, HandleType.RMR, ia);
            this.pz = pz;
        }
    }

    /** A Consumer Notification Object. */
    static final class Cno extends Obj {
        Object agent;
        /**
         * An EVD fed it since its agent was set: it may have been triggered and its agent invoked, even if no EVD
         * feeds it now (dat_cno_create: "After it is invoked, it is no longer associated with the CNO").
         */
        boolean fed;

        Cno(String sym, Ia ia) {
            super(sym, HandleType.CNO, ia);
        }
    }

    /** A software event posted and not yet dequeued. */
    record SoftwareEv(Object pointer) {}

    /** An asynchronous event the provider must (certain) or may post on an IA's async EVD. */
    static final class AsyncExp {
        final EventNumber number;
        final Obj handle;
        final io.simrdma.dat.AsyncErrorReason reason;
        final Check check;
        boolean certain;
        boolean repeatable;
        /** For an SRQ low watermark: the setting it belongs to. */
        int arming;

        AsyncExp(EventNumber number, Obj handle, io.simrdma.dat.AsyncErrorReason reason, boolean certain, Check check) {
            this.number = number;
            this.handle = handle;
            this.reason = reason;
            this.certain = certain;
            this.check = check;
        }
    }

    /** An Event Dispatcher. */
    static final class Evd extends Obj {
        final Set<EvdFlag> flags;
        int minQlen;
        int qlen;
        Cno cno;
        /** CNOs the EVD fed before dat_evd_modify_cno: a notification it made then may still come on them. */
        final Set<Cno> oldCnos = new java.util.HashSet<>();

        boolean enabled = true;
        boolean waitable = true;
        final boolean providerCreated;
        final ArrayDeque<SoftwareEv> software = new ArrayDeque<>();
        final List<AsyncExp> async = new ArrayList<>();
        /** Events may have been lost (overflow) or the model cannot follow them: checks on this EVD are relaxed. */
        boolean unreliable;

        Evd(String sym, Ia ia, Set<EvdFlag> flags, int minQlen, boolean providerCreated) {
            super(sym, HandleType.EVD, ia);
            this.flags = EnumSet.copyOf(flags);
            this.minQlen = minQlen;
            this.providerCreated = providerCreated;
        }
    }

    /** What a DTO or an RMR bind is. */
    enum WorkKind {
        SEND,
        RECV,
        RDMA_READ,
        RDMA_WRITE,
        BIND
    }

    /** A segment of a local I/O vector: memory, offset, length. */
    record Seg(Mem mem, int off, int len) {}

    /**
     * A posted DTO or RMR bind whose completion event has not yet been dequeued: the statuses it may
     * complete with, whether it certainly completes, and what it moves.
     */
    static final class Work {
        final WorkKind kind;
        final Ep ep;
        final boolean suppress;
        final boolean unsignalled;
        /** The local I/O vector as posted (for an SRQ receive: the buffer's, once known). */
        List<Tri> segs;

        final long length;
        final int seq;
        /** Statuses the completion may carry. */
        EnumSet<DtoCompletionStatus> possible;
        /**
         * Its memory overlapped another unfinished work's or was written by the consumer while it ran: the bytes
         * that land are not verifiable, even if its data is learnt later (a receive learns it from the Send).
         */
        boolean raced;
        /** True once it is certain to complete (its event comes, unless suppressed and successful). */
        boolean certain;
        /** The work at the other end: the receive a send lands in, and the other way round. */
        Work peer;
        /** The bytes a send, write or read moves (null: not verifiable). */
        byte[] data;
        /** Where successful data lands: the receive's, read's local or write's remote segments. */
        List<Seg> dest;
        /** Where the data comes from: the send's or write's local segments, the read's remote ones. */
        List<Seg> source;
        /** For an RDMA Read or Write, the remote LMR it accesses (directly or through an RMR). */
        Lmr remoteLmr;
        /** For an RDMA Read or Write through an RMR's binding, that RMR (a later bind of it races with the DTO). */
        Rmr viaRmr;
        /** The RMR of a bind, the binding it makes (null: unbind), and the context it returned. */
        Rmr rmr;

        Binding binding;
        /** A completion was dequeued (or the work completed silently). */
        boolean done;
        /** It completed with an error status (a failed Send shows no more than that its message may have left). */
        boolean failed;
        /** Completes apart from its stream's order and without ending the connection (a PZ change failed it). */
        boolean apart;
        /** Posted on a stream without an EVD (dat_ep_create: the consumer is not interested): no event comes. */
        boolean noEvd;
        /** An error status ends the connection (a receive too small, a remote access error). */
        boolean breaks;
        /** If it completes with an error, the connection breaks then (the model could not tell before). */
        boolean breakOnError;
        /** Posted while a transfer error was breaking the connection: it may complete either way. */
        boolean maybeBroken;
        /** For a receive from an SRQ: the buffer is known only from the completion. */
        Srq srq;
        /** The check the completion's status is held to. */
        Check check;

        long cookie;
        /** The EVD of its stream when it was posted (its completion is queued there even if dat_ep_modify moves it). */
        Evd postedTo;

        Work(WorkKind kind, Ep ep, long cookie, Set<CompletionFlag> flags, List<Tri> segs, long length, int seq) {
            this.kind = kind;
            this.ep = ep;
            this.cookie = cookie;
            this.suppress = flags.contains(CompletionFlag.SUPPRESS);
            this.unsignalled = flags.contains(CompletionFlag.UNSIGNALLED);
            this.segs = segs;
            this.length = length;
            this.seq = seq;
        }

        boolean request() {
            return kind != WorkKind.RECV;
        }

        /** Whether it may complete without an event (suppressed and successful). */
        boolean maySilent() {
            return suppress && possible.contains(DtoCompletionStatus.SUCCESS);
        }

        @Override
        public String toString() {
            return kind + "(" + ep.sym + ", cookie " + cookie + ", " + length + " bytes, may " + possible + ")";
        }
    }

    /**
     * A fork: a point where the provider chooses among outcomes the pages allow (an accepted request
     * or one the active side gave up on; a graceful or a broken end). Alternatives of pending steps
     * name an option; choosing one drops the others everywhere.
     */
    static final class Fork {
        final String name;
        String chosen;
        /**
         * Whether the choice concerns only the event of the one slot that names this fork (BROKEN or
         * DISCONNECTED for an end already certain): a state seen then leaves the event open.
         */
        final boolean local;

        Fork(String name) {
            this(name, false);
        }

        Fork(String name, boolean local) {
            this.name = name;
            this.local = local;
        }

        boolean viable(String option) {
            return option == null || chosen == null || chosen.equals(option);
        }
    }

    /**
     * An asynchronous state change of an EP the provider will (certain) or may make: the new state,
     * the connection event it posts (or none), and the model changes it brings.
     */
    static final class Step {
        final EndpointState to;
        final EventNumber event;
        byte[] privateData;
        final Fork fork;
        final String option;
        final Check check;
        final Runnable effect;
        /**
         * The connection this step establishes on the active side, or null. dat_ep_connect(3DAT): "The acceptance
         * of the requested connection by the remote Consumer is reported to the local Consumer through a
         * DAT_CONNECTION_EVENT_ESTABLISHED event" and the EP becomes CONNECTED "when a Connection Request accepted
         * by the remote Consumer and the Provider completes the Transport-specific Connection establishment": the
         * step cannot happen before the model saw dat_cr_accept succeed (a post that succeeds on an EP whose
         * request nobody accepted shows it DISCONNECTED, not CONNECTED).
         */
        Conn awaitsAccept;
        /**
         * The request this step refuses for a full backlog, or null: possible only while the request was not
         * delivered and its service point's EVD may hold more events than its queue (dat_psp_create: "Consumers can
         * control the size of backlog through the queue size of the associated Event Dispatcher").
         */
        Arrival refusedIfFull;

        Step(
                EndpointState to,
                EventNumber event,
                byte[] privateData,
                Fork fork,
                String option,
                Check check,
                Runnable effect) {
            this.to = to;
            this.event = event;
            this.privateData = privateData;
            this.fork = fork;
            this.option = option;
            this.check = check;
            this.effect = effect;
        }

        boolean viable() {
            return (fork == null || fork.viable(option))
                    && (awaitsAccept == null || awaitsAccept.accepted)
                    && (refusedIfFull == null || refusedIfFull.evd.unreliable && refusedIfFull.conn.cr == null);
        }

        @Override
        public String toString() {
            return "->" + to + (event == null ? "" : " with " + event) + (option == null ? "" : " [" + option + "]");
        }
    }

    /** One pending slot of an EP: alternatives of which one happens (if certain) or none yet. */
    static final class Slot {
        final List<Step> alternatives = new ArrayList<>();
        boolean certain;
        /**
         * A break of a connection the EP was still establishing: certain once the establishment completes (a step
         * to CONNECTED happens), since the error has then broken a connection the EP has.
         */
        boolean certainOnceConnected;

        Slot(boolean certain, Step... steps) {
            this.certain = certain;
            alternatives.addAll(List.of(steps));
        }

        List<Step> viable() {
            List<Step> l = new ArrayList<>();
            for (Step s : alternatives) {
                if (s.viable()) {
                    l.add(s);
                }
            }
            return l;
        }
    }

    /** A connection event that happened (the EP's state changed) and waits to be dequeued. */
    record ConnEv(EventNumber number, byte[] privateData, Check check) {}

    /** A connection attempt: from an active EP to a service point, and what became of it. */
    static final class Conn {
        final Ep active;
        final Ia targetIa;
        final long qual;
        final byte[] privateData;
        final Fork fork;
        Obj sp;
        Cr cr;
        Ep passive;
        boolean accepted;
        boolean rejected;
        /** The active side gave up establishing (disconnect or free while pending). */
        boolean aborted;
        /**
         * Its request could not be told from an aborted connect's (the same requester, the same private data): the
         * CR the consumer got may be either's, so what accepting it leads to is not predicted.
         */
        boolean unsure;
        /**
         * The consumer's dat_ep_connect timeout in microseconds ({@code DAT_TIMEOUT_INFINITE} unless the connect gave a
         * finite one): dat_ep_connect(3DAT), "Duration of time, in microseconds, that a Consumer waits for Connection
         * establishment".
         */
        long timeoutMicros = Timeout.INFINITE_MICROS;
        /** That timeout expired while the remote consumer held the request unanswered (row 2.5#5). */
        boolean timedOut;

        Conn(Ep active, Ia targetIa, long qual, byte[] privateData, Fork fork) {
            this.active = active;
            this.targetIa = targetIa;
            this.qual = qual;
            this.privateData = privateData;
            this.fork = fork;
        }
    }

    /** An Endpoint. */
    static final class Ep extends Obj {
        Pz pz;
        Evd recvEvd;
        Evd reqEvd;
        Evd connEvd;
        final Srq srq;
        EpAttributes attrs;
        EndpointState state = EndpointState.UNCONNECTED;
        final List<Slot> pending = new ArrayList<>();
        final ArrayDeque<ConnEv> arrived = new ArrayDeque<>();
        /** Connection events that may still be dequeued or may have been lost (dat_ep_reset). */
        final ArrayDeque<ConnEv> maybe = new ArrayDeque<>();

        final ArrayDeque<Work> requests = new ArrayDeque<>();
        final ArrayDeque<Work> recvs = new ArrayDeque<>();
        /** Sends from the peer waiting for a receive here (RNR). */
        final ArrayDeque<Work> waitingSends = new ArrayDeque<>();
        /**
         * The ends of a graceful disconnect of this EP (its own and its peer's) that wait for request DTOs that may
         * never complete (a Send waiting for a receive): certain once those complete.
         */
        final List<Slot> endsAfterRequests = new ArrayList<>();

        Ep peer;
        Conn conn;
        boolean recvPosted;
        boolean providerCreated;
        /** The model cannot follow this EP (a race it does not predict): its states and events are not checked. */
        boolean wild;
        /** An error status was seen in the request / receive direction: later completions fail too. */
        boolean reqFailed;

        boolean recvFailed;
        /** A work request already posted will break the connection: later work is flushed. */
        boolean breaking;
        /**
         * The end {@link #breaking} awaits is a transfer error not yet seen, not the consumer's abrupt disconnect:
         * until the error happens the EP is still connected, so work posted meanwhile is outstanding when the
         * connection breaks, not posted after it.
         */
        boolean errorBreak;
        /** The other side ended the connection and this EP will learn it: later work may or may not complete. */
        boolean peerEnding;
        /** A work request may break the connection (if what holds it back completes): later work may fail. */
        boolean mayBreak;
        /** dat_ep_reset succeeded while an accepted connection was in flight: a no-op or a reset (S4). */
        boolean resetOrNoOp;
        /** Work whose completion dat_ep_reset may have lost: its event may still come, or never. */
        final ArrayDeque<Work> orphans = new ArrayDeque<>();

        Rsp rsp;
        /** A provider EP the consumer gave back (dat_cr_reject): any later use is undefined. */
        boolean undefined;

        int softWatermark = -1;
        int hardWatermark = -1;

        Ep(String sym, Ia ia, Pz pz, Evd recvEvd, Evd reqEvd, Evd connEvd, Srq srq) {
            super(sym, HandleType.EP, ia);
            this.pz = pz;
            this.recvEvd = recvEvd;
            this.reqEvd = reqEvd;
            this.connEvd = connEvd;
            this.srq = srq;
        }

        /** The states the EP may be in now: its state, or the state any pending step leads to. */
        Set<EndpointState> possibleStates() {
            EnumSet<EndpointState> s = EnumSet.of(state);
            for (Slot slot : pending) {
                for (Step st : slot.viable()) {
                    s.add(st.to);
                }
            }
            return s;
        }

        boolean settled() {
            return pending.isEmpty();
        }

        boolean connectedNow() {
            return state == EndpointState.CONNECTED && pending.isEmpty();
        }
    }

    /** A connection request on its way to a service point's EVD. */
    static final class Arrival {
        final Conn conn;
        final Obj sp;
        final Evd evd;
        final boolean certain;
        final Check check;
        /** A request that must not arrive (it was rejected): seeing it fails {@link #check}. */
        boolean phantom;

        Arrival(Conn conn, Obj sp, Evd evd, boolean certain, Check check) {
            this.conn = conn;
            this.sp = sp;
            this.evd = evd;
            this.certain = certain;
            this.check = check;
        }

        /** Whether the request can still arrive (the active side did not end otherwise). */
        boolean viable() {
            if (phantom) {
                return true;
            }
            String c = conn.fork.chosen;
            return c == null || c.equals("est") || c.equals("rej") || c.equals("gaveup") || c.equals("aborted");
        }
    }

    /** A Public Service Point. */
    static final class Psp extends Obj {
        long qual;
        final Evd evd;
        final PspFlag flag;
        final boolean any;

        Psp(String sym, Ia ia, long qual, Evd evd, PspFlag flag, boolean any) {
            super(sym, HandleType.PSP, ia);
            this.qual = qual;
            this.evd = evd;
            this.flag = flag;
            this.any = any;
        }
    }

    /** A Reserved Service Point. */
    static final class Rsp extends Obj {
        final long qual;
        final Ep ep;
        final Evd evd;
        boolean fired;
        /** The connect whose request fired it. */
        Conn firedBy;

        Rsp(String sym, Ia ia, long qual, Ep ep, Evd evd) {
            super(sym, HandleType.RSP, ia);
            this.qual = qual;
            this.ep = ep;
            this.evd = evd;
        }
    }

    /** A Connection Request delivered to the consumer. */
    static final class Cr extends Obj {
        final Conn conn;
        final Obj sp;
        Ep providerEp;

        Cr(String sym, Ia ia, Conn conn, Obj sp) {
            super(sym, HandleType.CR, ia);
            this.conn = conn;
            this.sp = sp;
        }
    }

    /** A receive buffer posted to an SRQ. */
    record SrqBuf(long cookie, List<Tri> segs, long length) {}

    /**
     * The remote buffer of an RDMA Read or Write as an action names it: the rmr_context of the LMR or
     * RMR {@code sym} (or the number {@code raw}), {@code len} bytes from offset {@code off} of the
     * region's address.
     */
    record Remote(String sym, Integer raw, long off, long len) {}

    /** A Shared Receive Queue. */
    static final class Srq extends Obj {
        final Pz pz;
        int maxRecvDtos;
        int maxRecvIov;
        int lw;
        boolean armed;
        /** How many times the low watermark was set (each setting arms one event). */
        int arming;

        final List<SrqBuf> posted = new ArrayList<>();
        /** Cookies of posted buffers whose memory other work also writes or reads: their bytes cannot be checked. */
        final java.util.Set<Long> raced = new java.util.HashSet<>();
        /** Buffers taken by incoming messages whose completions were not dequeued. */
        int taken;
        /** Incoming messages that will take a buffer (sent, not yet matched to a completion). */
        int incoming;

        Srq(String sym, Ia ia, Pz pz) {
            super(sym, HandleType.SRQ, ia);
            this.pz = pz;
        }
    }
}

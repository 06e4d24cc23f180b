package io.simrdma.examples;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.ConnectionEvent;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatEvent;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.Qos;
import io.simrdma.dat.RegionDescription;
import io.simrdma.dat.RmrTriplet;
import io.simrdma.dat.Timeout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;

/**
 * rping's protocol (see {@link RpingVerbs}) written against DAT 1.2 (uDAPL): an IA instead of a
 * device, a PZ instead of a PD, LMRs instead of MRs, an EP instead of a QP and a CM id, EVDs
 * instead of CQs and CM event channels, and a PSP where the server listens.
 */
final class RpingDat implements Example {

    @Override
    public String name() {
        return "rping-dat";
    }

    @Override
    public String summary() {
        return "rping over DAT 1.2: the same protocol with IAs, PZs, LMRs, EPs and EVDs";
    }

    /** One side: an IA (dat_ia_open) and what it needs to run an endpoint. */
    private static final class Side {
        final InterfaceAdapter ia;
        final ProtectionZone pz;
        final EventDispatcher dto;
        final EventDispatcher conn;
        final ByteBuffer buf = ByteBuffer.allocateDirect(512);
        final LocalMemoryRegion lmr;
        final Endpoint ep;

        Side(String iaName, boolean passive) {
            ia = Dat.openIa(iaName, 8); // dat_ia_open
            pz = ia.createPz(); // dat_pz_create
            dto = ia.createEvd(16, null, EnumSet.of(EvdFlag.DTO)); // completions
            conn = ia.createEvd(
                    4,
                    null,
                    passive
                            ? EnumSet.of(EvdFlag.CONNECTION, EvdFlag.CR)
                            : EnumSet.of(EvdFlag.CONNECTION)); // connection events
            lmr = ia.createLmr(new RegionDescription.Virtual(buf), pz, MemoryPrivilege.all()); // dat_lmr_create
            ep = ia.createEndpoint(pz, dto, dto, conn, null); // dat_ep_create
        }

        LmrTriplet iov(int offset, int length) {
            return new LmrTriplet(lmr.lmrContext(), lmr.registeredAddress() + offset, length);
        }

        /** Waits for the next completion on the DTO EVD (dat_evd_wait) and checks it. */
        DtoCompletionEvent done(long cookie) {
            DatEvent e = dto.waitForEvent(Timeout.ofMillis(5000), 1).event().orElseThrow();
            DtoCompletionEvent d = e.asDtoCompletion();
            Lab.check(
                    d.status() == DtoCompletionStatus.SUCCESS && d.userCookie() == cookie,
                    "expected a successful completion of cookie " + cookie + ", got " + d);
            return d;
        }

        /** Builds a rping_rdma_info in the send slot: this side's buffer at {@code offset}. */
        void info(int offset, int size) {
            buf.putLong(RpingVerbs.SEND_INFO, lmr.registeredAddress() + offset)
                    .putInt(RpingVerbs.SEND_INFO + 8, lmr.rmrContext().orElseThrow())
                    .putInt(RpingVerbs.SEND_INFO + 12, size);
        }

        RmrTriplet peerBuffer() {
            return new RmrTriplet(
                    buf.getInt(RpingVerbs.RECV_INFO + 8),
                    buf.getLong(RpingVerbs.RECV_INFO),
                    buf.getInt(RpingVerbs.RECV_INFO + 12));
        }
    }

    @Override
    public void run(Context context) {
        Side server = new Side("sim:rping-dat/server?seed=3", true);
        Side client = new Side("sim:rping-dat/client", false);
        Lab.Watch watch = Lab.Watch.dat(server.ia, name(), context); // --pcap, --ladder
        try {
            int size = RpingVerbs.SIZE;
            server.ia.createPsp(7174, server.conn, PspFlag.CONSUMER); // dat_psp_create
            client.ep.connect(
                    server.ia.query().iaAttributes().iaAddress(),
                    7174,
                    Timeout.ofMillis(5000),
                    null,
                    Qos.BEST_EFFORT,
                    EnumSet.noneOf(ConnectFlag.class)); // dat_ep_connect
            ConnectionRequestEvent cr = server.conn
                    .waitForEvent(Timeout.ofMillis(5000), 1)
                    .event()
                    .orElseThrow()
                    .asConnectionRequest();
            cr.cr().accept(server.ep, null); // dat_cr_accept
            ConnectionEvent up = client.conn
                    .waitForEvent(Timeout.ofMillis(5000), 1)
                    .event()
                    .orElseThrow()
                    .asConnectionEvent();
            server.conn.waitForEvent(Timeout.ofMillis(5000), 1).event().orElseThrow();
            context.out()
                    .println("client: " + up.eventNumber() + ", endpoint "
                            + client.ep.query().state());

            EnumSet<CompletionFlag> flags = CompletionFlag.defaults();
            for (int i = 0; i < RpingVerbs.COUNT; i++) {
                String ping = String.format("rdma-ping-%d: ", i);
                for (int k = 0; ping.length() < size; k++) {
                    ping += (char) (33 + (i + k) % 94);
                }
                client.buf.put(RpingVerbs.SOURCE, ping.getBytes(StandardCharsets.US_ASCII));

                // 1. client -> server: the source buffer (dat_ep_post_recv first, then dat_ep_post_send)
                server.ep.postRecv(List.of(server.iov(RpingVerbs.RECV_INFO, 16)), 1, flags);
                client.ep.postRecv(List.of(client.iov(RpingVerbs.RECV_INFO, 16)), 2, flags);
                client.info(RpingVerbs.SOURCE, size);
                client.ep.postSend(List.of(client.iov(RpingVerbs.SEND_INFO, 16)), 3, flags);
                server.done(1);
                client.done(3);

                // 2. server: dat_ep_post_rdma_read of the client's source, then "go ahead"
                server.ep.postRdmaRead(List.of(server.iov(RpingVerbs.SOURCE, size)), 4, server.peerBuffer(), flags);
                server.done(4);
                server.ep.postRecv(List.of(server.iov(RpingVerbs.RECV_INFO, 16)), 1, flags);
                server.info(RpingVerbs.SOURCE, size);
                server.ep.postSend(List.of(server.iov(RpingVerbs.SEND_INFO, 16)), 5, flags);
                server.done(5);
                client.done(2);

                // 3. client -> server: the sink buffer
                client.ep.postRecv(List.of(client.iov(RpingVerbs.RECV_INFO, 16)), 2, flags);
                client.info(RpingVerbs.SINK, size);
                client.ep.postSend(List.of(client.iov(RpingVerbs.SEND_INFO, 16)), 6, flags);
                server.done(1);
                client.done(6);

                // 4. server: dat_ep_post_rdma_write into the sink, then "done"
                server.ep.postRdmaWrite(List.of(server.iov(RpingVerbs.SOURCE, size)), 7, server.peerBuffer(), flags);
                server.done(7);
                server.ep.postSend(List.of(server.iov(RpingVerbs.SEND_INFO, 16)), 8, flags);
                server.done(8);
                client.done(2);

                // 5. client: sink equals source
                Lab.check(
                        client.buf.slice(RpingVerbs.SOURCE, size).equals(client.buf.slice(RpingVerbs.SINK, size)),
                        "iteration " + i + ": sink differs from source");
                context.out().println("client: ping data: " + ping);
            }
            client.ep.disconnect(CloseFlag.GRACEFUL); // dat_ep_disconnect
            ConnectionEvent bye = client.conn
                    .waitForEvent(Timeout.ofMillis(5000), 1)
                    .event()
                    .orElseThrow()
                    .asConnectionEvent();
            context.out()
                    .println("client: " + bye.eventNumber() + ", endpoint "
                            + client.ep.query().state());
            server.conn.waitForEvent(Timeout.ofMillis(5000), 1).event().orElseThrow(); // the server's DISCONNECTED
        } finally {
            watch.close();
            client.ia.close(CloseFlag.ABRUPT); // dat_ia_close frees the rest
            server.ia.close(CloseFlag.ABRUPT);
        }
        context.out().flush();
    }
}

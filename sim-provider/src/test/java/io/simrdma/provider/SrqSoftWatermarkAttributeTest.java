package io.simrdma.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.AsyncErrorEvent;
import io.simrdma.dat.AsyncErrorReason;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.SharedReceiveQueue;
import io.simrdma.dat.SrqAttributes;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The srq_soft_hw endpoint attribute arms the soft high watermark of an SRQ endpoint from its creation. */
class SrqSoftWatermarkAttributeTest {

    /** An endpoint of b with {@code attrs} on an SRQ holding one 64-byte buffer (cookie 1), connected to a new endpoint of a. */
    private record Connected(Endpoint ea, Endpoint eb) {
        static Connected open(DatPair p, EpAttributes attrs) {
            SharedReceiveQueue srq = p.b.ia.createSrq(p.b.pz, new SrqAttributes(8, 1, Dat.SRQ_LW_DEFAULT));
            Endpoint eb = p.b.ia.createEndpointWithSrq(p.b.pz, p.b.dto, p.b.dto, p.b.conn, srq, attrs);
            srq.postRecv(p.b.iov(0, 64), 1);
            Endpoint ea = p.a.ep();
            p.connect(ea, eb);
            return new Connected(ea, eb);
        }

        /** {@code ea} sends 8 bytes; they complete the SRQ's buffer on b's DTO EVD. */
        void sendOne(DatPair p) {
            ea.postSend(p.a.iov(0, 8), 2, CompletionFlag.defaults());
            assertEquals(1, DatPair.next(p.b.dto, DtoCompletionEvent.class).userCookie());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_create_with_srq(3DAT), dat_ep_set_watermark(3DAT): srq_soft_hw 0 reports the first buffer the EP takes")
    void shouldReportSoftWatermarkWhenSrqSoftHwAttributeIsExceeded(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EpAttributes defaults = p.b.ep().query().attributes();
            Connected c = Connected.open(p, defaults.toBuilder().srqSoftHw(0).build());
            EventDispatcher async = p.b.ia.query().asyncEvd().orElseThrow();
            assertTrue(async.dequeue().isEmpty(), "no event before the EP takes a buffer");
            c.sendOne(p);
            AsyncErrorEvent e = DatPair.next(async, AsyncErrorEvent.class);
            assertEquals(AsyncErrorReason.SRQ_SOFT_HIGH_WATERMARK_EVENT, e.reason());
            assertEquals(c.eb(), e.handle());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_create_with_srq(3DAT): srq_soft_hw DAT_HW_DEFAULT arms nothing")
    void shouldReportNothingWhenSrqSoftHwIsDefault(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Connected.open(p, p.b.ep().query().attributes()).sendOne(p);
            EventDispatcher async = p.b.ia.query().asyncEvd().orElseThrow();
            assertEquals(Optional.empty(), async.dequeue());
        }
    }
}

package io.simrdma.fabric.internal.rc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.simrdma.fabric.RecvWr;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The send and receive rings make a WQE slot the first time a post reaches it and reuse it from
 * then on: an idle QP holds no slots (heap per connected endpoint, issue 12's P7), and a busy one
 * allocates nothing per post once every slot has been used.
 */
class WorkQueueSlotsTest {

    @Test
    @DisplayName("a send slot is made by the first post that reaches it and the same slot serves the post a ring later")
    void shouldReuseSendSlotWhenTheRingWraps() {
        SendQueue sq = new SendQueue(4, 2, 16);
        SendWqe first = sq.slotForPost(1);
        assertNotNull(first, "slotForPost makes the slot");
        assertSame(first, sq.at(1), "at() returns the slot a post filled");
        assertSame(first, sq.slotForPost(5), "index 5 is the same slot of a ring of 4: reused, not made again");
        assertEquals(2, first.sgeAddr.length, "a slot holds max_send_sge SGEs");
        assertEquals(16, first.inlineData.length, "a slot holds max_inline_data bytes inline");
    }

    @Test
    @DisplayName(
            "a receive ring fills to its depth, reports ENOMEM past it, and reuses its slots after they are consumed")
    void shouldReuseRecvSlotsWhenConsumed() {
        RecvQueue rq = new RecvQueue(2, 1);
        RecvWr a = new RecvWr().wrId(1).sge(0x1000, 64, 7);
        RecvWr b = new RecvWr().wrId(2).sge(0x2000, 32, 7);
        synchronized (rq.postLock) {
            assertEquals(1, rq.post(a, null, null, null));
            assertEquals(1, rq.post(b, null, null, null));
        }
        RecvWqe slotA = rq.peek();
        assertEquals(1, slotA.wrId(), "the oldest posted receive comes first");
        assertEquals(64, slotA.capacity());
        rq.advance();
        synchronized (rq.postLock) {
            rq.post(new RecvWr().wrId(3).sge(0x3000, 16, 7), null, null, null);
        }
        assertEquals(2, rq.peek().wrId(), "order kept across the wrap");
        rq.advance();
        RecvWqe third = rq.peek();
        assertSame(slotA, third, "the third post reuses the first slot of a ring of 2");
        assertEquals(3, third.wrId());
        assertEquals(16, third.capacity());
    }

    @Test
    @DisplayName("resizing a receive ring keeps its posted WQEs in order, and posts after it fill new slots")
    void shouldKeepPostedWqesWhenResized() {
        RecvQueue rq = new RecvQueue(2, 1);
        synchronized (rq.postLock) {
            rq.post(new RecvWr().wrId(10).sge(0x1000, 8, 1), null, null, null);
            rq.post(new RecvWr().wrId(11).sge(0x1000, 8, 1), null, null, null);
            rq.resize(4);
            rq.post(new RecvWr().wrId(12).sge(0x1000, 8, 1), null, null, null);
        }
        for (long id = 10; id <= 12; id++) {
            assertEquals(id, rq.peek().wrId(), "WQE " + id + " in posting order after the resize");
            rq.advance();
        }
        assertEquals(0, rq.size());
    }
}

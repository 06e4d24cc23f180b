package io.simrdma.examples;

import io.simrdma.fabric.Counter;
import io.simrdma.fabric.FaultRule;
import io.simrdma.fabric.Link;
import io.simrdma.fabric.PacketMatcher;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.RcConnect;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.WrOpcode;
import java.util.concurrent.TimeUnit;

/**
 * What the RC transport does when the wire misbehaves, one fault at a time, with the ladder of the
 * run (and, with {@code --pcap}, a capture whose comments say what happened to each packet):
 * <ol>
 *   <li>a lost request in the middle of an RDMA WRITE: the responder sees a PSN gap and NAKs it
 *       (PSN sequence error); the requester goes back and sends again from the lost packet;</li>
 *   <li>a lost ACK: nothing comes back, the requester's ACK timer fires and it sends the WRITE
 *       again; the responder has it already, so it answers the duplicate without executing it;</li>
 *   <li>a SEND before the receiver posted a receive: the responder answers RNR NAK ("receiver not
 *       ready"), the requester waits the RNR timer and tries again until a receive is there.</li>
 * </ol>
 */
final class FaultLab implements Example {

    @Override
    public String name() {
        return "fault-lab";
    }

    @Override
    public String summary() {
        return "a lost request (NAK, go-back-N), a lost ACK (timeout, duplicate) and RNR, shown in the ladder";
    }

    @Override
    public void run(Context context) {
        try (Lab lab = new Lab("fault-lab", 7, new Context(context.out(), context.pcap(), true))) {
            Lab.Host a = lab.host("a", 8192);
            Lab.Host b = lab.host("b", 8192);
            QueuePair qa = a.qp();
            QueuePair qb = b.qp();
            // timeout 10: the ACK timer waits 4.096 us x 2^10 = 4.2 ms; RNR timer code 1 = 10 us
            RcConnect.connect(
                    qa, qb, RcConnect.Options.defaults().withTimeout(10).withMinRnrTimer(1));
            Link link = lab.fabric.link(a.device, b.device);

            // 1. lose the 2nd packet of a 4-packet RDMA WRITE
            link.addFault(FaultRule.drop(PacketMatcher.nth(2, PacketMatcher.requests()))
                    .times(1));
            qa.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(a.mr, 0, 4096)
                    .remote(b.mr.address(), b.mr.rkey())
                    .flag(SendFlag.SIGNALED));
            a.await();
            lab.say("1. RDMA WRITE of 4096 bytes done despite the lost packet");
            link.clearFaults();

            // 2. lose the ACK of a one-packet RDMA WRITE
            link.addFault(FaultRule.drop(PacketMatcher.acks()).times(1));
            qa.postSend(new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(a.mr, 0, 1024)
                    .remote(b.mr.address(), b.mr.rkey())
                    .flag(SendFlag.SIGNALED));
            a.await();
            lab.say("2. RDMA WRITE of 1024 bytes done after an ACK timeout");
            link.clearFaults();

            // 3. SEND before b posts a receive; b posts it 30 us later
            qa.postSend(
                    new SendWr().wrId(3).opcode(WrOpcode.SEND).sge(a.mr, 0, 64).flag(SendFlag.SIGNALED));
            Lab.check(
                    !a.cq.awaitCompletions(1, 30, TimeUnit.MICROSECONDS), "the SEND completed with no receive posted");
            qb.postRecv(new RecvWr().wrId(4).sge(b.mr, 0, 64));
            b.await();
            a.await();
            lab.say("3. SEND done once b posted its receive");

            lab.say("a's QP: " + qa.counters().get(Counter.NAK_SEQ_ERR_RECEIVED) + " PSN sequence NAK, "
                    + qa.counters().get(Counter.RETRY_TIMEOUTS) + " ACK timeout, "
                    + qa.counters().get(Counter.RNR_NAK_RECEIVED) + " RNR NAKs, "
                    + qa.counters().get(Counter.RETRANSMITTED_PACKETS) + " packets sent again");
            lab.say("b's QP: " + qb.counters().get(Counter.DUPLICATE_REQUESTS) + " duplicate request answered, "
                    + qb.counters().get(Counter.OUT_OF_SEQUENCE) + " out-of-sequence requests dropped");
        }
    }
}

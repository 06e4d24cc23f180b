package io.simrdma.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.DatException;
import io.simrdma.dat.EvdFlag;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * EvdStreams keeps counts instead of its streams; this checks it against the rule as
 * dat_ep_create(3DAT) USAGE states it, walking every stream (the way it was computed before), over
 * random joins, checks and leaves.
 */
class EvdStreamsTest {

    private static final List<Set<CompletionFlag>> FLAGS = List.of(
            EnumSet.noneOf(CompletionFlag.class),
            EnumSet.of(CompletionFlag.UNSIGNALLED),
            EnumSet.of(CompletionFlag.SOLICITED_WAIT),
            EnumSet.of(CompletionFlag.EVD_THRESHOLD));

    /** The rule, stream by stream: null if the stream may join, else the message of the first stream that refuses it. */
    private static String walk(
            boolean nonDto,
            List<EvdStreams.Stream> present,
            boolean recv,
            Set<CompletionFlag> flags,
            EvdStreams.Stream sibling) {
        boolean u = flags.contains(CompletionFlag.UNSIGNALLED);
        boolean s = recv && flags.contains(CompletionFlag.SOLICITED_WAIT);
        if (nonDto && (u || s)) {
            return "an EVD fed by non-DTO streams takes only threshold-controlled DTO streams";
        }
        List<EvdStreams.Stream> all = new ArrayList<>(present);
        if (sibling != null) {
            all.add(sibling);
        }
        for (EvdStreams.Stream e : all) {
            if (e.unsignalled() != u) {
                return "every DTO stream of an EVD with an UNSIGNALLED stream must be UNSIGNALLED";
            }
            if ((e.solicitedWait() || s) && !(e.recv() && recv && e.solicitedWait() && s)) {
                return "an EVD with a SOLICITED_WAIT receive stream takes only SOLICITED_WAIT receive streams";
            }
        }
        return null;
    }

    private static String check(
            EvdStreams streams, boolean recv, Set<CompletionFlag> flags, EvdStreams.Stream sibling) {
        try {
            streams.checkJoin(recv, flags, sibling);
            return null;
        } catch (DatException e) {
            assertEquals(io.simrdma.dat.DatReturnType.INVALID_PARAMETER, e.type(), "return code of a refused join");
            return e.getMessage().substring(e.getMessage().indexOf(": ") + 2);
        }
    }

    @Test
    @DisplayName("dat_ep_create(3DAT) USAGE: the counted rule answers as the rule walked over every stream")
    void shouldAnswerAsTheWalkOverEveryStreamWhenStreamsComeAndGo() {
        SplittableRandom r = new SplittableRandom(12);
        for (int evd = 0; evd < 200; evd++) {
            boolean nonDto = r.nextInt(4) == 0;
            EvdStreams streams =
                    new EvdStreams(nonDto ? EnumSet.of(EvdFlag.DTO, EvdFlag.CONNECTION) : EnumSet.of(EvdFlag.DTO));
            List<EvdStreams.Stream> present = new ArrayList<>();
            List<Object> eps = new ArrayList<>();
            List<Object> oneStream = new ArrayList<>();
            for (int step = 0; step < 60; step++) {
                boolean recv = r.nextBoolean();
                Set<CompletionFlag> flags = FLAGS.get(r.nextInt(FLAGS.size()));
                EvdStreams.Stream sibling = r.nextInt(4) == 0
                        ? new EvdStreams.Stream(null, true, FLAGS.get(r.nextInt(FLAGS.size())))
                        : null;
                String expected = walk(nonDto, present, recv, flags, sibling);
                assertEquals(expected, check(streams, recv, flags, sibling), "step " + step + " of EVD " + evd);
                assertEquals(present.isEmpty(), streams.isEmpty());
                assertEquals(
                        present.stream().anyMatch(x -> x.unsignalled() || x.solicitedWait()),
                        streams.consumerControlled());
                assertEquals(present.stream().anyMatch(EvdStreams.Stream::solicitedWait), streams.hasSolicitedWait());
                if (expected == null && r.nextInt(3) > 0) {
                    // the stream joins, of a new endpoint or (its second stream) of one already here;
                    // an endpoint is only an identity to the streams
                    Object ep;
                    if (oneStream.isEmpty() || r.nextBoolean()) {
                        ep = new Object();
                        eps.add(ep);
                        oneStream.add(ep);
                    } else {
                        ep = oneStream.remove(r.nextInt(oneStream.size()));
                    }
                    EvdStreams.Stream st = new EvdStreams.Stream(ep, recv, flags);
                    streams.add(st);
                    present.add(st);
                } else if (!eps.isEmpty() && r.nextInt(4) == 0) {
                    Object ep = eps.remove(r.nextInt(eps.size()));
                    oneStream.remove(ep);
                    streams.removeAll(ep);
                    present.removeIf(x -> x.owner() == ep);
                }
            }
        }
    }
}

package io.simrdma.provider;

import static io.simrdma.provider.DatPair.assertDat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.NamedAttribute;
import io.simrdma.fabric.FaultRule;
import io.simrdma.fabric.Link;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The IA-name options of a fault profile (loss, dup, reorder, delay, flap): the links of the fabric
 * get the rules, RC hides them from the DAT consumer (every message arrives, whole and in order),
 * and a malformed option is DAT_INVALID_PARAMETER.
 */
class LinkFaultsTest {

    @ParameterizedTest
    @ValueSource(
            strings = {"loss=0.3", "dup=0.2", "reorder=0.3", "delay=0.3", "flap=40:8", "loss=0.05&dup=0.05&reorder=0.1"
            })
    @DisplayName(
            "dat_ep_post_send(3DAT), dat_ep_post_recv(3DAT): transport faults change nothing the consumer sees but "
                    + "timing: every Send completes, every receive holds its message, in order")
    void shouldDeliverEveryMessageInOrderWhenLinksMisbehave(String faults) {
        try (DatPair p = DatPair.open(DatPair.Mode.DETERMINISTIC, faults)) {
            Link link = EventTestSupport.link(p);
            assertTrue(
                    !link.faults().isEmpty() || faults.startsWith("flap"),
                    "the link got the profile's rules: " + link.faults());
            ObjectFixtures.Connected c = ObjectFixtures.connect(p);
            if (faults.startsWith("flap")) {
                // into the link's first outage (down from 32 ms to 40 ms): the sends start while it is down
                p.a.ia
                        .createEvd(1, java.util.EnumSet.of(io.simrdma.dat.EvdFlag.SOFTWARE))
                        .waitForEvent(io.simrdma.dat.Timeout.ofMillis(33), 1);
            }
            int n = 30;
            for (int i = 0; i < n; i++) {
                c.b().postRecv(p.b.iov(i * 64, 64), 1000 + i, CompletionFlag.defaults());
            }
            for (int i = 0; i < n; i++) {
                for (int k = 0; k < 64; k++) {
                    p.a.buf.put(i * 64 + k, (byte) (i * 7 + k));
                }
                c.a().postSend(p.a.iov(i * 64, 64), i, CompletionFlag.defaults());
            }
            for (int i = 0; i < n; i++) {
                DtoCompletionEvent r = EventTestSupport.completion(p.b.dto, 1000 + i);
                assertEquals(DtoCompletionStatus.SUCCESS, r.status(), () -> "receive " + r);
                EventTestSupport.completion(p.a.dto, i);
            }
            for (int i = 0; i < n * 64; i++) {
                assertEquals(p.a.buf.get(i), p.b.buf.get(i), "byte " + i + " of the received messages");
            }
            long hits = 0;
            for (FaultRule r : link.faults()) {
                hits += r.hits();
            }
            assertTrue(hits > 0 || faults.startsWith("flap"), "the rules acted on packets: " + link.faults());
            if (faults.startsWith("flap")) {
                assertTrue(
                        link.stats(EventTestSupport.device(p.a)).dropped() > 0,
                        "packets sent while the link was " + "down were lost: "
                                + link.stats(EventTestSupport.device(p.a)));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"loss=1.5", "dup=-0.1", "reorder=x", "flap=10:20", "flap=10", "flap=0:0"})
    @DisplayName("IA name: a fault option that is not a probability, or a flap that is not <period>:<down> with "
            + "down < period, is DAT_INVALID_PARAMETER")
    void shouldRefuseMalformedFaultOption(String option) {
        assertDat(
                DatReturnType.INVALID_PARAMETER,
                () -> Dat.openIa("sim:" + ObjectFixtures.fabric("faults") + "/a?" + option, 8));
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("IA name traceDigest=true: dat_ia_query's provider-specific attributes carry a SHA-256 digest of the "
            + "fabric's trace; without the option there is none")
    void shouldExposeTraceDigestOnlyWhenAsked(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode, "traceDigest=true")) {
            ObjectFixtures.connect(p);
            assertNotNull(digest(p), "the digest attribute is present");
        }
        try (DatPair p = DatPair.open(mode)) {
            assertEquals(null, digest(p), "no digest without traceDigest=true");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "&loss=0.2&reorder=0.2"})
    @DisplayName("IA name traceDigest=true: the same name (seed 11) on the deterministic fabric gives a byte-identical "
            + "trace (the same digest); other fault probabilities draw other faults")
    void shouldReplayTraceDigestWhenNameRepeats(String faults) {
        String first = exchange(faults);
        assertEquals(first, exchange(faults), "same seed, same trace");
        if (!faults.isEmpty()) {
            assertTrue(!first.equals(exchange(faults.replace("0.2", "0.3"))), "other draws, another trace");
        }
    }

    private static String exchange(String faults) {
        try (DatPair p = DatPair.open(DatPair.Mode.DETERMINISTIC, "traceDigest=true" + faults)) {
            ObjectFixtures.Connected c = ObjectFixtures.connect(p);
            for (int i = 0; i < 10; i++) {
                c.b().postRecv(p.b.iov(i * 128, 128), 100 + i, CompletionFlag.defaults());
                c.a().postSend(p.a.iov(i * 128, 128), i, CompletionFlag.defaults());
            }
            for (int i = 0; i < 10; i++) {
                EventTestSupport.completion(p.b.dto, 100 + i);
                EventTestSupport.completion(p.a.dto, i);
            }
            return digest(p);
        }
    }

    private static String digest(DatPair p) {
        List<NamedAttribute> l = p.a.ia.query().providerAttributes().providerSpecificAttributes();
        for (NamedAttribute a : l) {
            if (a.name().equals(TraceDigest.ATTRIBUTE)) {
                return a.value();
            }
        }
        return null;
    }
}

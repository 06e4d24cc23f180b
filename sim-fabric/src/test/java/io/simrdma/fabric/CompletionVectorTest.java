package io.simrdma.fabric;

import static io.simrdma.fabric.ControlPlaneFixture.WAIT_MS;
import static io.simrdma.fabric.ControlPlaneFixture.assertErrno;
import static io.simrdma.fabric.ControlPlaneFixture.connect;
import static io.simrdma.fabric.ControlPlaneFixture.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.ControlPlaneFixture.Mode;
import io.simrdma.fabric.ControlPlaneFixture.Node;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Completion vectors: ibv_context's num_comp_vectors and ibv_create_cq(3)'s comp_vector, which
 * "must be at least zero and less than context->num_comp_vectors". A device reports its profile's
 * count (or the one its configuration sets); a CQ remembers its vector and works on every vector;
 * a vector out of range is EINVAL and creates nothing.
 */
class CompletionVectorTest {

    static Stream<DeviceProfile> shipped() {
        return DeviceProfile.shipped().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shipped")
    @DisplayName(
            "num_comp_vectors: the device reports its profile's completion vectors, in ibv_query_device's attributes too")
    void shouldReportProfileCompVectorsWhenDeviceIsQueried(DeviceProfile p) {
        try (Fabric f = Fabric.deterministic(1)) {
            Device d = f.createDevice(DeviceConfig.named("d").profile(p));
            assertEquals(p.limits().numCompVectors(), d.numCompVectors(), p + ": num_comp_vectors");
            assertEquals(d.numCompVectors(), d.query().numCompVectors(), p + ": the attributes say the same");
            Device set = f.createDevice(DeviceConfig.named("e").profile(p).numCompVectors(2));
            assertEquals(2, set.numCompVectors(), p + ": a count set on the configuration overrides the profile's");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_create_cq(3): comp_vector 0..num_comp_vectors-1 is accepted and kept; a CQ on the last vector completes work")
    void shouldCreateCqOnEveryVectorWhenVectorIsInRange(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device ad = f.createDevice(DeviceConfig.named("a").numCompVectors(3));
            CompletionChannel ch = ad.createCompletionChannel();
            for (int v = 0; v < 3; v++) {
                CompletionQueue cq = ad.createCq(4, ch, "ctx" + v, v);
                assertEquals(v, cq.compVector(), "comp_vector of the CQ created on vector " + v);
                assertEquals("ctx" + v, cq.context());
                assertSame(ch, cq.channel());
                cq.destroy();
            }
            assertEquals(0, ad.createCq(4).compVector(), "ibv_create_cq without a vector uses vector 0");

            // A CQ on the last vector takes completions and signals its channel like any other.
            CompletionQueue last = ad.createCq(8, ch, null, 2);
            Node a = new Node(ad, last);
            Node b = Node.of(f, "b");
            QueuePair qa = a.qp();
            QueuePair qb = b.qp();
            connect(qa, qb);
            last.requestNotify(false);
            qa.postSend(write(a, 7, 0, 64, b.mr.address(), b.mr.rkey()));
            assertSame(last, ch.getCqEvent(WAIT_MS, TimeUnit.MILLISECONDS), "the event names the CQ on vector 2");
            last.ackEvents(1);
            assertTrue(last.awaitCompletions(1, WAIT_MS, TimeUnit.MILLISECONDS));
            WorkCompletion[] wc = WorkCompletion.array(1);
            assertEquals(1, last.poll(wc));
            assertEquals(WcStatus.SUCCESS, wc[0].status(), wc[0].toString());
            assertEquals(7, wc[0].wrId());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_create_cq(3): a comp_vector below zero or not less than num_comp_vectors is EINVAL and creates no CQ")
    void shouldRefuseWithEinvalWhenVectorIsOutOfRange(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device d = f.createDevice(DeviceConfig.named("a").numCompVectors(2).maxCq(1));
            assertErrno(Errno.EINVAL, () -> d.createCq(4, null, null, 2));
            assertErrno(Errno.EINVAL, () -> d.createCq(4, null, null, -1));
            assertErrno(Errno.EINVAL, () -> d.createCq(4, null, null, Integer.MAX_VALUE));
            // Nothing was created: the one CQ max_cq allows can still be made.
            CompletionQueue cq = d.createCq(4, null, null, 1);
            assertEquals(1, cq.compVector());
            assertErrno(Errno.ENOMEM, () -> d.createCq(4, null, null, 0));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "DeviceConfig: a device without completion vectors cannot be configured (num_comp_vectors is at least 1)")
    void shouldRefuseConfigurationWhenCompVectorsAreNotPositive(Mode mode) {
        try (Fabric f = mode.fabric()) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
                    IllegalArgumentException.class,
                    () -> f.createDevice(DeviceConfig.named("a").numCompVectors(0)));
            assertTrue(e.getMessage().contains("numCompVectors"), e.getMessage());
        }
    }
}

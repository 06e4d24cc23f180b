package io.simrdma.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs each test of a class (or one test) on a fresh simulated fabric, with the checks of
 * {@link SimFabricExtension}: leaked verbs objects and DAT handles, work requests never completed,
 * completions and events never reaped, leaked threads and Netty buffers, and the buffer-ownership
 * rules of ibv_post_send(3)/ibv_post_recv(3).
 *
 * <pre>{@code
 * @SimFabricTest
 * class MyAppTest {
 *     @Test
 *     void shouldEchoWhenPeerAnswers(TestFabric net, @Node("a") Device a, @Node("b") Device b) { ... }
 *
 *     @Test
 *     @SimFabricTest(profile = "rxe", checkOwnership = false)   // this test only
 *     void shouldFallBackWhenNoAtomics(TestFabric net) { ... }
 * }
 * }</pre>
 *
 * <p>An annotation on a method overrides the one on its class. The seed of a deterministic fabric
 * is the system property {@code simrdma.seed} when set, else a random one per test; a failing test
 * reports it with the command that re-runs exactly that test with that seed.
 *
 * <p>Immutable (an annotation). Tests of a class may run in parallel: each has its own fabric.
 */
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(SimFabricExtension.class)
public @interface SimFabricTest {

    /** The devices the fabric starts with (one TCP node each in {@link FabricMode#TCP_LOOPBACK}). */
    String[] devices() default {"a", "b"};

    /** How the fabric runs; a {@link FabricMatrix} test runs each mode it names instead. */
    FabricMode mode() default FabricMode.DETERMINISTIC;

    /** The device profile of every device: ibta, mlx5, rxe or siw (DeviceProfile.named). */
    String profile() default "ibta";

    /** Whether the buffer-ownership checker runs (see {@link OwnershipChecker}). */
    boolean checkOwnership() default true;

    /** Whether the end-of-test leak checks run (see {@link LeakChecks}). */
    boolean checkLeaks() default true;

    /** Fault scripts ({@link FaultScript#parse}) applied to the fabric before the test runs. */
    String[] faults() default {};
}

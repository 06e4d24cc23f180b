package io.simrdma.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.TestTemplate;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test once per fabric mode and device profile it names (every combination), each on a
 * fresh fabric: the way Netty's testsuite runs one test over every transport. Use it instead of
 * {@code @Test}; the other settings come from {@link SimFabricTest}.
 *
 * <pre>{@code
 * @FabricMatrix(profiles = {"ibta", "rxe"})          // 3 modes x 2 profiles = 6 runs
 * void shouldEchoWhenPeerAnswers(TestFabric net) { ... }
 * }</pre>
 *
 * <p>Immutable (an annotation); each run has its own fabric and thread-safety is that of the test.
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@TestTemplate
@ExtendWith(SimFabricExtension.class)
public @interface FabricMatrix {

    /** The modes to run on; all three by default. */
    FabricMode[] modes() default {FabricMode.DETERMINISTIC, FabricMode.THREADED, FabricMode.TCP_LOOPBACK};

    /** The device profiles to run with; the test's {@link SimFabricTest#profile()} when empty. */
    String[] profiles() default {};
}

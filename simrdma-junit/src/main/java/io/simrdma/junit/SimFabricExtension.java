package io.simrdma.junit;

import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.fabric.Counters;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.Fabric;
import io.simrdma.provider.SimProvider;
import java.lang.reflect.AnnotatedElement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.BeforeTestExecutionCallback;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestTemplateInvocationContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContextProvider;
import org.junit.platform.commons.support.AnnotationSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JUnit 5 extension behind {@link SimFabricTest} and {@link FabricMatrix}.
 *
 * <p>Per test: a fresh {@link TestFabric} (built on first use: by a parameter of a
 * {@code @BeforeEach} method or of the test, else just before the test runs), with the seed of the
 * system property {@code simrdma.seed} or a random one; the fault scripts of
 * {@link SimFabricTest#faults()} applied; parameters of these types injected: {@link TestFabric},
 * {@link Fabric}, {@link Device}, {@link InterfaceAdapter}, {@link Counters} (the last three for the
 * first device, or the one {@link Node} names), {@link Faults}, {@link OwnershipChecker}.
 *
 * <p>When the test throws, the exception carries a suppressed {@link SeedReport} (also printed on
 * standard error) with the seed and the command that re-runs exactly that test with it. After the
 * test, in this order: the DAT handles of the injected IAs not freed; the IAs closed; buffer
 * ownership violations; verbs objects not destroyed; WRs never completed; completions never polled;
 * the fabric closed; threads and Netty buffers leaked. Any problem fails the test with one message
 * listing them all, and the seed. A test that failed already is not checked for leaks (its clean-up
 * did not run), only cleaned up.
 *
 * <p>Thread safety: JUnit calls it per test; state lives in the test's extension store.
 */
public final class SimFabricExtension
        implements BeforeEachCallback,
                BeforeTestExecutionCallback,
                AfterEachCallback,
                ParameterResolver,
                TestExecutionExceptionHandler,
                LifecycleMethodExecutionExceptionHandler,
                TestTemplateInvocationContextProvider {

    private static final Logger LOG = LoggerFactory.getLogger(SimFabricExtension.class);

    /** The system property that fixes the seed. */
    public static final String SEED_PROPERTY = "simrdma.seed";

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(SimFabricExtension.class);
    private static final Class<?>[] INJECTED = {
        TestFabric.class,
        Fabric.class,
        Device.class,
        InterfaceAdapter.class,
        Counters.class,
        Faults.class,
        OwnershipChecker.class
    };

    /** The settings of one test: its annotation, and a matrix cell's mode and profile. */
    record Settings(SimFabricTest annotation, FabricMode mode, String profile) {}

    /** A cell of a {@link FabricMatrix}: stores its mode and profile before the test's fabric is built. */
    private record Cell(FabricMode mode, String profile) implements TestTemplateInvocationContext, BeforeEachCallback {
        @Override
        public String getDisplayName(int invocationIndex) {
            return mode.name().toLowerCase(Locale.ROOT) + ", " + profile;
        }

        @Override
        public List<Extension> getAdditionalExtensions() {
            return List.of(this);
        }

        @Override
        public void beforeEach(ExtensionContext context) {
            context.getStore(NS).put("cell", this);
        }
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    public void beforeEach(ExtensionContext context) {
        ExtensionContext.Store store = context.getStore(NS);
        store.put("threads", LeakChecks.simrdmaThreads());
        SimProvider.recordCreationSites(true);
        LeakChecks.listenToNetty();
        LeakChecks.clearNettyLeaks();
    }

    @Override
    public void beforeTestExecution(ExtensionContext context) {
        fabric(context);
    }

    /** The test's fabric, built on first call. */
    static TestFabric fabric(ExtensionContext context) {
        ExtensionContext.Store store = context.getStore(NS);
        TestFabric net = store.get("fabric", TestFabric.class);
        if (net != null) {
            return net;
        }
        Settings s = settings(context);
        long seed = seed();
        store.put("seed", seed);
        store.put("settings", s);
        OwnershipChecker checker = new OwnershipChecker(s.annotation().checkOwnership());
        net = new TestFabric(
                s.mode(), s.profile(), seed, Arrays.asList(s.annotation().devices()), checker);
        store.put("fabric", net);
        for (String script : s.annotation().faults()) {
            net.faults().add(script);
        }
        return net;
    }

    static long seed() {
        String p = System.getProperty(SEED_PROPERTY);
        if (p != null && !p.isBlank()) {
            try {
                return Long.decode(p.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("-D" + SEED_PROPERTY + "=" + p + " is not a number", e);
            }
        }
        return ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
    }

    static Settings settings(ExtensionContext context) {
        SimFabricTest a = find(context.getRequiredTestMethod())
                .or(() -> find(context.getRequiredTestClass()))
                .orElseGet(() -> Defaults.class.getAnnotation(SimFabricTest.class));
        Cell cell = context.getStore(NS).get("cell", Cell.class);
        return cell == null ? new Settings(a, a.mode(), a.profile()) : new Settings(a, cell.mode(), cell.profile());
    }

    private static Optional<SimFabricTest> find(AnnotatedElement e) {
        Optional<SimFabricTest> a = AnnotationSupport.findAnnotation(e, SimFabricTest.class);
        if (a.isEmpty() && e instanceof Class<?> c && c.getEnclosingClass() != null) {
            return find(c.getEnclosingClass());
        }
        return a;
    }

    /** The defaults of a test that only has {@link FabricMatrix}. */
    @SimFabricTest
    private static final class Defaults {}

    @Override
    public void afterEach(ExtensionContext context) {
        ExtensionContext.Store store = context.getStore(NS);
        TestFabric net = store.remove("fabric", TestFabric.class);
        if (net == null) {
            return;
        }
        Settings s = store.get("settings", Settings.class);
        boolean failed = context.getExecutionException().isPresent();
        boolean leaks = s.annotation().checkLeaks() && !failed;
        List<String> problems = new ArrayList<>();
        try {
            if (leaks) {
                net.openedIas().forEach((name, ia) -> problems.addAll(LeakChecks.datHandles(name, ia)));
            }
            net.closeIas();
            if (!failed) {
                for (String v : net.checker().violations()) {
                    problems.add("buffer ownership violation: " + v);
                }
            }
            if (leaks) {
                problems.addAll(LeakChecks.verbsObjects(net.checker()));
                for (String wr : net.checker().outstanding()) {
                    problems.add("work request posted and never completed: " + wr);
                }
                for (String cq : net.checker().unreaped()) {
                    problems.add("completions not reaped: " + cq);
                }
            }
        } finally {
            net.close();
        }
        if (leaks) {
            @SuppressWarnings("unchecked")
            Set<Thread> before = store.get("threads", Set.class);
            problems.addAll(LeakChecks.leakedThreads(before == null ? Set.of() : before));
            problems.addAll(LeakChecks.nettyLeaks());
        }
        if (!problems.isEmpty()) {
            StringBuilder m = new StringBuilder("simrdma-junit: ")
                    .append(problems.size())
                    .append(problems.size() == 1 ? " problem" : " problems")
                    .append(" at the end of ")
                    .append(context.getDisplayName())
                    .append(':');
            for (String p : problems) {
                m.append("\n  - ").append(p);
            }
            m.append('\n').append(SeedReport.message(context, net));
            throw new AssertionError(m.toString());
        }
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
        reportSeed(context, throwable);
    }

    /** A {@code @BeforeEach} method that fails reports the seed as the test would. */
    @Override
    public void handleBeforeEachMethodExecutionException(ExtensionContext context, Throwable throwable)
            throws Throwable {
        reportSeed(context, throwable);
    }

    /** A {@code @AfterEach} method that fails reports the seed as the test would. */
    @Override
    public void handleAfterEachMethodExecutionException(ExtensionContext context, Throwable throwable)
            throws Throwable {
        reportSeed(context, throwable);
    }

    private static void reportSeed(ExtensionContext context, Throwable throwable) throws Throwable {
        TestFabric net = context.getStore(NS).get("fabric", TestFabric.class);
        if (net != null) {
            SeedReport report = new SeedReport(SeedReport.message(context, net));
            throwable.addSuppressed(report);
            // The person running the build reads it in the log too, next to the failure.
            LOG.warn("{}", report.getMessage());
        }
        throw throwable;
    }

    // ------------------------------------------------------------------ parameters

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
        Class<?> t = p.getParameter().getType();
        for (Class<?> c : INJECTED) {
            if (c == t) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext e) {
        TestFabric net = fabric(e);
        Class<?> t = p.getParameter().getType();
        String name = p.findAnnotation(Node.class)
                .map(Node::value)
                .orElse(net.deviceNames().get(0));
        try {
            if (t == TestFabric.class) {
                return net;
            } else if (t == Fabric.class) {
                return net.fabric(name);
            } else if (t == Device.class) {
                return net.device(name);
            } else if (t == InterfaceAdapter.class) {
                return net.ia(name);
            } else if (t == Counters.class) {
                return net.counters(name);
            } else if (t == Faults.class) {
                return net.faults();
            }
            return net.checker();
        } catch (RuntimeException ex) {
            throw new ParameterResolutionException("cannot inject " + p.getParameter() + ": " + ex.getMessage(), ex);
        }
    }

    // ------------------------------------------------------------------ the matrix

    @Override
    public boolean supportsTestTemplate(ExtensionContext context) {
        return AnnotationSupport.isAnnotated(context.getTestMethod(), FabricMatrix.class);
    }

    @Override
    public Stream<TestTemplateInvocationContext> provideTestTemplateInvocationContexts(ExtensionContext context) {
        FabricMatrix m = AnnotationSupport.findAnnotation(context.getRequiredTestMethod(), FabricMatrix.class)
                .orElseThrow();
        String[] profiles = m.profiles().length > 0
                ? m.profiles()
                : new String[] {
                    find(context.getRequiredTestMethod())
                            .or(() -> find(context.getRequiredTestClass()))
                            .map(SimFabricTest::profile)
                            .orElse("ibta")
                };
        List<TestTemplateInvocationContext> cells = new ArrayList<>();
        for (FabricMode mode : m.modes()) {
            for (String profile : profiles) {
                cells.add(new Cell(mode, profile));
            }
        }
        return cells.stream();
    }
}

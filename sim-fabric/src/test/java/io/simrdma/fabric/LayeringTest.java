package io.simrdma.fabric;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.library.Architectures;
import io.simrdma.fabric.internal.device.FabricImpl;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * sim-fabric's rooms and the one-way imports between them (drawn in the README's module map):
 *
 * <pre>
 *   cm ──────────────┐            tcp ─────────┐
 *                    v                         v
 *   internal.device ──> internal.rc ──> internal.mem, internal.cq ──> internal
 *          │  └─────> internal.ucud ──> internal.rc (SRQs), mem, cq, link        │
 *          │                                                             │
 *          └──> internal.link ──────────────────────────────────────────>│
 *                                                                         v
 *                              io.simrdma.fabric (the verbs API) ──> wire, sched
 * </pre>
 *
 * {@code capture} (pcapng files) and {@code view} (ladders, the HTML viewer) observe a fabric
 * through the API's trace listener only. Applications and the DAT provider see only the API,
 * {@code cm}, {@code tcp}, {@code capture}, {@code view}, {@code wire} and {@code sched}; everything under {@code internal} is the implementation. The one dependency from
 * the API to an implementation is {@link Fabric.Builder#build()} naming {@link FabricImpl}, as
 * java.net.http.HttpClient.newBuilder() names its implementation.
 */
class LayeringTest {

    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        main = new ClassFileImporter()
                // main classes only, whatever the build directory is called (-Dbuild.dir=target-x)
                .withImportOption(location -> !location.contains("/test-classes/"))
                .importPackages("io.simrdma.fabric");
    }

    @Test
    @DisplayName("imports run one way: API <- internal layers <- device <- tcp; cm uses only the API")
    void shouldKeepEveryImportAlongTheLayering() {
        Architectures.layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("Wire")
                .definedBy("io.simrdma.fabric.wire..")
                .layer("Sched")
                .definedBy("io.simrdma.fabric.sched..")
                .layer("Api")
                .definedBy("io.simrdma.fabric")
                .layer("Common")
                .definedBy("io.simrdma.fabric.internal")
                .layer("Memory")
                .definedBy("io.simrdma.fabric.internal.mem..")
                .layer("Completion")
                .definedBy("io.simrdma.fabric.internal.cq..")
                .layer("Link")
                .definedBy("io.simrdma.fabric.internal.link..")
                .layer("Rc")
                .definedBy("io.simrdma.fabric.internal.rc..")
                .layer("Unreliable")
                .definedBy("io.simrdma.fabric.internal.ucud..")
                .layer("Device")
                .definedBy("io.simrdma.fabric.internal.device..")
                .layer("Cm")
                .definedBy("io.simrdma.fabric.cm..")
                .layer("Tcp")
                .definedBy("io.simrdma.fabric.tcp..")
                .layer("Capture")
                .definedBy("io.simrdma.fabric.capture..")
                .layer("View")
                .definedBy("io.simrdma.fabric.view..")
                .whereLayer("Wire")
                .mayOnlyAccessLayers("Sched")
                .whereLayer("Sched")
                .mayNotAccessAnyLayer()
                .whereLayer("Api")
                .mayOnlyAccessLayers("Wire", "Sched")
                .whereLayer("Common")
                .mayOnlyAccessLayers("Api", "Wire", "Sched")
                .whereLayer("Memory")
                .mayOnlyAccessLayers("Common", "Api", "Wire", "Sched")
                .whereLayer("Completion")
                .mayOnlyAccessLayers("Common", "Api", "Wire", "Sched")
                .whereLayer("Link")
                .mayOnlyAccessLayers("Common", "Api", "Wire", "Sched")
                .whereLayer("Rc")
                .mayOnlyAccessLayers("Memory", "Completion", "Link", "Common", "Api", "Wire", "Sched")
                .whereLayer("Unreliable")
                .mayOnlyAccessLayers("Rc", "Memory", "Completion", "Link", "Common", "Api", "Wire", "Sched")
                .whereLayer("Device")
                .mayOnlyAccessLayers(
                        "Rc", "Unreliable", "Memory", "Completion", "Link", "Common", "Api", "Wire", "Sched")
                .whereLayer("Cm")
                .mayOnlyAccessLayers("Api", "Wire", "Sched")
                .whereLayer("Tcp")
                .mayOnlyAccessLayers("Device", "Link", "Common", "Api", "Wire", "Sched")
                .whereLayer("Capture")
                .mayOnlyAccessLayers("Api", "Wire", "Sched")
                .whereLayer("View")
                .mayOnlyAccessLayers("Capture", "Api", "Wire", "Sched")
                .ignoreDependency(Fabric.Builder.class, FabricImpl.class)
                .check(main);
    }

    @Test
    @DisplayName("no package of sim-fabric depends on itself through another")
    void shouldHaveNoPackageCycles() {
        slices().matching("io.simrdma.(**)")
                .should()
                .beFreeOfCycles()
                .ignoreDependency(Fabric.Builder.class, FabricImpl.class)
                .check(main);
    }

    @Test
    @DisplayName("the verbs API package holds interfaces, values and exceptions, never an engine class")
    void shouldKeepImplementationsOutOfTheApiPackage() {
        noClasses()
                .that()
                .resideInAPackage("io.simrdma.fabric")
                .should()
                .haveSimpleNameEndingWith("Impl")
                .check(main);
    }
}

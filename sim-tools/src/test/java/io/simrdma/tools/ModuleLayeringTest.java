package io.simrdma.tools;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.library.Architectures;
import io.simrdma.provider.SimProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The modules' one-way imports (the README's module map): provider-api knows nothing but the
 * JDK; sim-fabric knows nothing of DAT; sim-provider maps DAT onto the fabric's public API; the
 * tools use the public APIs only. Nothing outside sim-fabric reaches its {@code internal}
 * packages.
 */
class ModuleLayeringTest {

    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        main = new ClassFileImporter()
                // main classes only, whatever the build directory is called (-Dbuild.dir=target-x)
                .withImportOption(location -> !location.contains("/test-classes/"))
                .importPackages("io.simrdma");
    }

    @Test
    @DisplayName(
            "modules depend downward only: tools -> conformance-tests -> provider-api, tools -> examples -> provider "
                    + "-> provider-api, provider -> sim-fabric")
    void shouldKeepModulesLayered() {
        Architectures.layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("Tools")
                .definedBy("io.simrdma.tools..")
                .layer("Conformance")
                .definedBy("io.simrdma.conformance..")
                .layer("Examples")
                .definedBy("io.simrdma.examples..")
                .layer("Provider")
                .definedBy("io.simrdma.provider..")
                .layer("DatApi")
                .definedBy("io.simrdma.dat..")
                .layer("Fabric")
                .definedBy("io.simrdma.fabric..")
                .whereLayer("Tools")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("Conformance")
                .mayOnlyBeAccessedByLayers("Tools")
                .whereLayer("Examples")
                .mayOnlyBeAccessedByLayers("Tools")
                .whereLayer("Provider")
                .mayOnlyBeAccessedByLayers("Tools", "Examples")
                .whereLayer("DatApi")
                .mayOnlyBeAccessedByLayers("Provider", "Conformance", "Examples", "Tools")
                .whereLayer("Fabric")
                .mayOnlyBeAccessedByLayers("Provider", "Examples", "Tools")
                .check(main);
    }

    @Test
    @DisplayName("the examples use the DAT and fabric APIs only: never the provider's classes but SimProvider, whose "
            + "fabricOf gives Lab the fabric under a DAT example's IA (to capture and draw it)")
    void shouldKeepExamplesOnPublicApis() {
        noClasses()
                .that()
                .resideInAPackage("io.simrdma.examples..")
                .should()
                .dependOnClassesThat(JavaClass.Predicates.resideInAPackage("io.simrdma.provider..")
                        .and(DescribedPredicate.not(JavaClass.Predicates.equivalentTo(SimProvider.class))))
                .check(main);
        noClasses()
                .that()
                .resideInAPackage("io.simrdma.examples..")
                .and()
                .doNotHaveSimpleName("Lab")
                .and()
                .doNotHaveFullyQualifiedName("io.simrdma.examples.Lab$Watch")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.simrdma.provider..")
                .because("the examples a learner reads name the DAT API only")
                .check(main);
    }

    @Test
    @DisplayName("provider-api depends on the JDK only")
    void shouldKeepTheDatApiFreeOfDependencies() {
        classes()
                .that()
                .resideInAPackage("io.simrdma.dat..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage("io.simrdma.dat..", "java..")
                .check(main);
    }

    @Test
    @DisplayName("only sim-fabric itself uses io.simrdma.fabric.internal")
    void shouldKeepFabricInternalsInsideTheFabric() {
        noClasses()
                .that()
                .resideOutsideOfPackage("io.simrdma.fabric..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.simrdma.fabric.internal..")
                .check(main);
    }

    @Test
    @DisplayName("the tools use the DAT and fabric APIs, never the provider's classes but SimProvider, whose "
            + "registerFabric hands the provider a fabric the tool built (to trace and capture it)")
    void shouldKeepToolsOnPublicApis() {
        noClasses()
                .that()
                .resideInAPackage("io.simrdma.tools..")
                .should()
                .dependOnClassesThat(JavaClass.Predicates.resideInAPackage("io.simrdma.provider..")
                        .and(DescribedPredicate.not(JavaClass.Predicates.equivalentTo(SimProvider.class))))
                .check(main);
    }
}

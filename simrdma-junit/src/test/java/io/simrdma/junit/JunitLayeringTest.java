package io.simrdma.junit;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.simrdma.provider.SimProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * simrdma-junit is an application of the public APIs (the README's module map): sim-fabric's public
 * packages, the DAT API, and sim-provider's entry point {@code SimProvider}, never sim-fabric's
 * internals or the provider's implementation classes.
 */
class JunitLayeringTest {

    private static JavaClasses toolkit;

    @BeforeAll
    static void importToolkit() {
        toolkit = new ClassFileImporter()
                .withImportOption(location -> !location.contains("/test-classes/"))
                .importPackages("io.simrdma.junit");
    }

    @Test
    @DisplayName("the toolkit never imports io.simrdma.fabric.internal")
    void shouldKeepOffFabricInternals() {
        noClasses()
                .that()
                .resideInAPackage("io.simrdma.junit..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.simrdma.fabric.internal..")
                .check(toolkit);
    }

    @Test
    @DisplayName("of sim-provider the toolkit uses only SimProvider, its public entry point")
    void shouldUseOnlyTheProvidersEntryPoint() {
        noClasses()
                .that()
                .resideInAPackage("io.simrdma.junit..")
                .should()
                .dependOnClassesThat(JavaClass.Predicates.resideInAPackage("io.simrdma.provider..")
                        .and(DescribedPredicate.not(JavaClass.Predicates.equivalentTo(SimProvider.class))))
                .check(toolkit);
    }
}

package dev.baton.spring;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.type;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.baton.peer.internal.PeerBuilder;
import org.junit.jupiter.api.Test;

/**
 * The starter uses the other modules' public API only, and its user-facing package ({@code dev.baton.spring}) does
 * not reach into its auto-configuration, so applications can use it without the auto-configuration.
 */
class SpringModuleArchitectureTest {

    private static final JavaClasses SPRING = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("dev.baton.spring");

    /**
     * The one exception is {@code PeerBuilder}: the quorum and bully builders inherit their public setters from it,
     * so a call to {@code Quorum.Builder.sharedSecret} is compiled as a call to the internal base class.
     */
    @Test
    void noOtherModulesInternals() {
        noClasses().should().dependOnClassesThat(resideInAPackage("dev.baton..internal..")
                .and(not(type(PeerBuilder.class)))).check(SPRING);
    }

    @Test
    void theApiDoesNotDependOnTheAutoConfiguration() {
        noClasses().that().resideInAnyPackage("dev.baton.spring", "dev.baton.spring.fencing",
                "dev.baton.spring.actuate").should().dependOnClassesThat()
                .resideInAPackage("dev.baton.spring.autoconfigure..").check(SPRING);
    }
}

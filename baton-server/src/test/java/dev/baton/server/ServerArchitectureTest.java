package dev.baton.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps test support out of the node and the node out of the libraries it is built from. The testkit (JUnit support
 * classes, embedded Redis and PostgreSQL launchers) is on the node's class path only for the commands that start
 * private servers: {@code baton chaos} and {@code baton worker}. And the embeddable modules an application adds on
 * their own, {@code baton-http} and {@code baton-micrometer}, must never reach back into the node.
 */
class ServerArchitectureTest {

    private static JavaClasses mainClasses;

    @BeforeAll
    static void importMainClasses() {
        mainClasses = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.baton.server", "dev.baton.http", "dev.baton.micrometer");
    }

    @Test
    void onlyTheCommandsThatStartPrivateServersUseTheTestkit() {
        // baton chaos starts private Redis and PostgreSQL servers; nothing else in the node needs the testkit (baton
        // worker's simulated worker lives in baton-worker-sim).
        ArchRule rule = noClasses().that().resideInAPackage("dev.baton.server..")
                .and().resideOutsideOfPackage("dev.baton.server.chaos..")
                .should().dependOnClassesThat().resideInAPackage("dev.baton.testkit..");
        rule.check(mainClasses);
    }

    @Test
    void theEmbeddableModulesDoNotDependOnTheNode() {
        ArchRule rule = noClasses().that().resideInAnyPackage("dev.baton.http..", "dev.baton.micrometer..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.baton.server..", "dev.baton.testkit..");
        rule.check(mainClasses);
    }

    @Test
    void theRulesSeeTheClassesTheyAreAbout() {
        // A rule over classes that were not found would pass without checking anything.
        assertThat(mainClasses.containPackage("dev.baton.http")).isTrue();
        assertThat(mainClasses.containPackage("dev.baton.micrometer")).isTrue();
        assertThat(mainClasses.containPackage("dev.baton.server.chaos")).isTrue();
    }
}

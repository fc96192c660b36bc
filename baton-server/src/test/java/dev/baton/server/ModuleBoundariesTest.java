package dev.baton.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The boundaries between modules, checked here because every module but the benchmarks is on this module's class
 * path: a module uses another module's public API and never its {@code internal} packages. Backends that need core's
 * building blocks (listener dispatch, the local lease deadline, the failure log) use {@code dev.baton.core.spi}.
 */
class ModuleBoundariesTest {

    private static JavaClasses baton;

    @BeforeAll
    static void importEveryModule() {
        baton = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.baton");
    }

    @Test
    void everyModuleIsOnTheClassPath() {
        for (String module : new String[] {"core", "redis", "postgres", "peer", "work", "server", "testkit"}) {
            String prefix = "dev.baton." + module + ".";
            if (baton.stream().noneMatch(type -> type.getPackageName().concat(".").startsWith(prefix))) {
                throw new AssertionError("no class of dev.baton." + module + " was imported: the rules below would"
                        + " check nothing for it");
            }
        }
    }

    @Test
    void nothingOutsideCoreUsesCoreInternals() {
        ArchRule rule = noClasses().that().resideOutsideOfPackage("dev.baton.core..")
                .should().dependOnClassesThat().resideInAPackage("dev.baton.core..internal..");
        rule.check(baton);
    }

    @Test
    void noModuleUsesAnotherModulesInternals() {
        for (String module : new String[] {"redis", "postgres", "peer", "work", "server", "testkit"}) {
            ArchRule rule = noClasses().that().resideOutsideOfPackage("dev.baton." + module + "..")
                    .should().dependOnClassesThat().resideInAPackage("dev.baton." + module + "..internal..");
            rule.check(baton);
        }
    }
}

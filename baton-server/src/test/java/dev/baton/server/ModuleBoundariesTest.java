package dev.baton.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The boundaries between modules, checked here because every module but the benchmarks is on this module's class
 * path: a module uses another module's public API and never its {@code internal} packages. Backends that need core's
 * building blocks (listener dispatch, the local lease deadline, the failure log) use {@code dev.baton.core.spi}. And
 * the arrows between modules point one way: every library depends on core and on no other Baton module, so an
 * application takes only the backend it runs on; the node ({@code dev.baton.server}) is the one module that puts them
 * together, and nothing depends on it.
 */
class ModuleBoundariesTest {

    /** The root package of each module on this class path; {@code worker} is baton-worker-sim. */
    private static final String[] MODULES = {"core", "redis", "postgres", "etcd", "peer", "work", "worker",
        "http", "micrometer", "testkit", "server"};

    private static JavaClasses baton;

    @BeforeAll
    static void importEveryModule() {
        baton = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.baton");
    }

    @Test
    void everyModuleIsOnTheClassPath() {
        for (String module : MODULES) {
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
        for (String module : new String[] {"redis", "postgres", "etcd", "peer", "work", "server", "testkit"}) {
            ArchRule rule = noClasses().that().resideOutsideOfPackage("dev.baton." + module + "..")
                    .should().dependOnClassesThat().resideInAPackage("dev.baton." + module + "..internal..");
            rule.check(baton);
        }
    }

    /**
     * A library sees core and nothing else of Baton: the store adapters not each other, the work cluster no store
     * adapter (it runs on any {@code CoordinationStore}) and no peer protocol, the simulated worker not the work
     * cluster it talks to (it speaks the worker protocol from the other side, so it checks the wire format rather
     * than sharing the cluster's code), and no library the testkit or the node.
     */
    @ParameterizedTest(name = "dev.baton.{0} depends on core only")
    @ValueSource(strings = {"redis", "postgres", "etcd", "peer", "work", "worker", "http", "micrometer", "testkit"})
    void aLibraryDependsOnCoreAndNoOtherModule(String module) {
        String[] others = Arrays.stream(MODULES).filter(other -> !other.equals("core") && !other.equals(module))
                .map(other -> "dev.baton." + other + "..").toArray(String[]::new);
        ArchRule rule = noClasses().that().resideInAPackage("dev.baton." + module + "..")
                .should().dependOnClassesThat().resideInAnyPackage(others);
        rule.check(baton);
    }

    @Test
    void coreDependsOnNoOtherModule() {
        String[] others = Arrays.stream(MODULES).filter(other -> !other.equals("core"))
                .map(other -> "dev.baton." + other + "..").toArray(String[]::new);
        ArchRule rule = noClasses().that().resideInAPackage("dev.baton.core..")
                .should().dependOnClassesThat().resideInAnyPackage(others);
        rule.check(baton);
    }

    @Test
    void onlyTheFaultHarnessUsesTheTestkit() {
        // The testkit's launchers and JUnit support stay out of every library; in the node only baton chaos, which
        // starts private servers, may use them (ServerArchitectureTest checks the node's side in more detail).
        ArchRule rule = noClasses().that().resideOutsideOfPackages("dev.baton.testkit..", "dev.baton.server.chaos..")
                .should().dependOnClassesThat().resideInAPackage("dev.baton.testkit..");
        rule.check(baton);
    }
}

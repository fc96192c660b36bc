package dev.baton.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.properties.HasOwner;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps the state machines pure (DESIGN §1): no sockets, no JDBC, no threads, no clock reads, no global randomness.
 * Time, scheduling and randomness are handed in, so every machine runs deterministically under a fake clock.
 */
class ArchitectureTest {

    private static final String[] STATE_MACHINES = {"dev.baton.core.lease..", "dev.baton.core.memory..",
        "dev.baton.core.fencing.."};

    private static JavaClasses core;

    @BeforeAll
    static void importCore() {
        core = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.baton.core");
    }

    @Test
    void stateMachinesOpenNoSocketsAndNoDatabaseConnections() {
        ArchRule rule = noClasses().that().resideInAnyPackage(STATE_MACHINES)
                .should().dependOnClassesThat().resideInAnyPackage("java.net..", "java.nio.channels..", "java.sql..",
                        "javax.sql..");
        rule.check(core);
    }

    @Test
    void stateMachinesStartNoThreads() {
        ArchRule rule = noClasses().that().resideInAnyPackage(STATE_MACHINES)
                .should().callConstructorWhere(JavaCall.Predicates.target(
                        HasOwner.Predicates.With.owner(JavaClass.Predicates.assignableTo(Thread.class))))
                .orShould().callMethod(Thread.class, "start")
                .orShould().callMethod(Thread.class, "sleep", long.class)
                .orShould().dependOnClassesThat().areAssignableTo(java.util.concurrent.ExecutorService.class)
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.concurrent.Executors")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.Timer")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.concurrent.ForkJoinPool");
        rule.check(core);
    }

    @Test
    void stateMachinesReadNoClockAndUseNoGlobalRandomness() {
        ArchRule rule = noClasses().that().resideInAnyPackage(STATE_MACHINES)
                .should().callMethod(System.class, "nanoTime")
                .orShould().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(java.time.Instant.class, "now")
                .orShould().callMethod(Math.class, "random")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.time.Clock")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.concurrent.ThreadLocalRandom")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.security.SecureRandom");
        rule.check(core);
    }

    @Test
    void coreDependsOnNoAdapter() {
        ArchRule rule = noClasses().that().resideInAPackage("dev.baton.core..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.baton.redis..", "dev.baton.server..",
                        "dev.baton.testkit..", "io.lettuce..", "io.netty..", "com.fasterxml..");
        rule.check(core);
    }
}

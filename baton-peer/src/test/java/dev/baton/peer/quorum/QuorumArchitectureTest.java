package dev.baton.peer.quorum;

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
 * Keeps the quorum protocol a pure state machine (DESIGN §1, §4), as baton-core's ArchitectureTest does for the lease
 * engine: no sockets, no threads, no clock reads, no global randomness. Time, scheduling, randomness, the transport
 * and the durable state are handed in. Two classes are the driver side and are exempt: {@code Quorum} (wires the
 * machine to an executor, the system clock and Netty) and {@code FileDurableState} (the file it saves votes in).
 */
class QuorumArchitectureTest {

    private static final String DRIVER = "dev\\.baton\\.peer\\.quorum\\.(Quorum|FileDurableState)(\\$.*)?";

    private static JavaClasses quorum;

    @BeforeAll
    static void importQuorum() {
        quorum = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.baton.peer.quorum");
    }

    @Test
    void theProtocolOpensNoSocketsAndUsesNoNetworkLibrary() {
        ArchRule rule = noClasses().that().resideInAPackage("dev.baton.peer.quorum..")
                .and().haveNameNotMatching(DRIVER)
                .should().dependOnClassesThat().resideInAnyPackage("java.net..", "java.nio.channels..", "java.sql..",
                        "io.netty..", "dev.baton.peer.transport.internal..")
                .orShould().dependOnClassesThat().haveSimpleName("NettyTransport");
        rule.check(quorum);
    }

    @Test
    void theProtocolStartsNoThreads() {
        ArchRule rule = noClasses().that().resideInAPackage("dev.baton.peer.quorum..")
                .and().haveNameNotMatching(DRIVER)
                .should().callConstructorWhere(JavaCall.Predicates.target(
                        HasOwner.Predicates.With.owner(JavaClass.Predicates.assignableTo(Thread.class))))
                .orShould().callMethod(Thread.class, "start")
                .orShould().callMethod(Thread.class, "sleep", long.class)
                .orShould().dependOnClassesThat().areAssignableTo(java.util.concurrent.ExecutorService.class)
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.concurrent.Executors")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.Timer")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.concurrent.ForkJoinPool")
                .orShould().dependOnClassesThat().haveSimpleName("ExecutorScheduler");
        rule.check(quorum);
    }

    @Test
    void theProtocolReadsNoClockAndUsesNoGlobalRandomness() {
        ArchRule rule = noClasses().that().resideInAPackage("dev.baton.peer.quorum..")
                .and().haveNameNotMatching(DRIVER)
                .should().callMethod(System.class, "nanoTime")
                .orShould().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(java.time.Instant.class, "now")
                .orShould().callMethod(Math.class, "random")
                .orShould().callMethod(dev.baton.core.time.Clock.class, "system")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.time.Clock")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.concurrent.ThreadLocalRandom")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.security.SecureRandom");
        rule.check(quorum);
    }

    @Test
    void theProtocolTouchesNoFiles() {
        ArchRule rule = noClasses().that().resideInAPackage("dev.baton.peer.quorum..")
                .and().haveNameNotMatching(DRIVER)
                .should().dependOnClassesThat().resideInAnyPackage("java.nio.file..")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.io.File");
        rule.check(quorum);
    }
}

package dev.baton.peer;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.properties.HasOwner;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The ArchUnit rules that keep a serverless protocol a pure state machine (DESIGN §1, §4): no sockets, no threads, no
 * clock reads, no global randomness, no files. Time, scheduling, randomness and the transport are handed in. Each
 * protocol's architecture test applies them to its package, exempting its driver classes (a regular expression on
 * the fully qualified name).
 */
public final class PurityRules {

    private final String pkg;
    private final String driver;

    /** Rules for the classes of {@code pkg} (and below) whose name does not match {@code driver}. */
    public PurityRules(String pkg, String driver) {
        this.pkg = pkg;
        this.driver = driver;
    }

    /** The package's main classes (tests excluded). */
    public JavaClasses classes() {
        return new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(pkg);
    }

    /** No sockets or network library; nor any of {@code alsoForbidden} (packages, ArchUnit syntax). */
    public ArchRule opensNoSockets(String... alsoForbidden) {
        String[] packages = new String[5 + alsoForbidden.length];
        System.arraycopy(new String[] {"java.net..", "java.nio.channels..", "java.sql..", "io.netty..",
                "dev.baton.peer.transport.internal.."}, 0, packages, 0, 5);
        System.arraycopy(alsoForbidden, 0, packages, 5, alsoForbidden.length);
        return noClasses().that().resideInAPackage(pkg + "..").and().haveNameNotMatching(driver)
                .should().dependOnClassesThat().resideInAnyPackage(packages)
                .orShould().dependOnClassesThat().haveSimpleName("NettyTransport");
    }

    public ArchRule startsNoThreads() {
        return noClasses().that().resideInAPackage(pkg + "..").and().haveNameNotMatching(driver)
                .should().callConstructorWhere(JavaCall.Predicates.target(
                        HasOwner.Predicates.With.owner(JavaClass.Predicates.assignableTo(Thread.class))))
                .orShould().callMethod(Thread.class, "start")
                .orShould().callMethod(Thread.class, "sleep", long.class)
                .orShould().dependOnClassesThat().areAssignableTo(java.util.concurrent.ExecutorService.class)
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.concurrent.Executors")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.Timer")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.concurrent.ForkJoinPool")
                .orShould().dependOnClassesThat().haveSimpleName("ExecutorScheduler");
    }

    public ArchRule readsNoClockAndUsesNoGlobalRandomness() {
        return noClasses().that().resideInAPackage(pkg + "..").and().haveNameNotMatching(driver)
                .should().callMethod(System.class, "nanoTime")
                .orShould().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(java.time.Instant.class, "now")
                .orShould().callMethod(Math.class, "random")
                .orShould().callMethod(dev.baton.core.time.Clock.class, "system")
                .orShould().callMethod(java.util.concurrent.CompletableFuture.class, "orTimeout", long.class,
                        java.util.concurrent.TimeUnit.class)
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.time.Clock")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.concurrent.ThreadLocalRandom")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.security.SecureRandom");
    }

    public ArchRule touchesNoFiles() {
        return noClasses().that().resideInAPackage(pkg + "..").and().haveNameNotMatching(driver)
                .should().dependOnClassesThat().resideInAnyPackage("java.nio.file..")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.io.File");
    }
}

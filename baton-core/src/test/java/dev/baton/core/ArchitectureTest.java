package dev.baton.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.fields;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.domain.properties.HasOwner;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps the state machines pure (DESIGN §1): no sockets, no JDBC, no threads, no clock reads, no global randomness.
 * Time, scheduling and randomness are handed in, so every machine runs deterministically under a fake clock. And
 * keeps the public surface small: no public signature of an API package names a type of an {@code internal}
 * package, and no one outside core uses those packages (checked where every module is on the class path, in
 * {@code baton-server}'s {@code ModuleBoundariesTest}; here for core's own classes).
 */
class ArchitectureTest {

    private static final String[] STATE_MACHINES = {"dev.baton.core.lease..", "dev.baton.core.memory..",
        "dev.baton.core.fencing.."};

    /** The packages users and backend implementers program against; {@code ..internal..} is not among them. */
    private static final String[] API_PACKAGES = {"dev.baton.core", "dev.baton.core.compat", "dev.baton.core.eventlog",
        "dev.baton.core.fencing", "dev.baton.core.lease", "dev.baton.core.memory", "dev.baton.core.spi",
        "dev.baton.core.store", "dev.baton.core.time"};

    private static final String INTERNAL = "dev.baton.core..internal..";

    /** What implements the API: the lease election, the in-memory store, the event recorder, the old facade. */
    private static final String[] IMPLEMENTATIONS = {"dev.baton.core.lease..", "dev.baton.core.memory..",
        "dev.baton.core.eventlog..", "dev.baton.core.compat.."};

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

    /**
     * The lease election's decisions are a step function: an input and the time in, actions and a wake-up out. It
     * reaches no clock, scheduler, store, listener or snapshot; its driver does all of that.
     */
    @Test
    void theLeaseStepFunctionReachesNothingButItsInputsAndActions() {
        ArchRule rule = noClasses().that().haveFullyQualifiedName("dev.baton.core.lease.LeaseMachine")
                .or().haveFullyQualifiedName("dev.baton.core.lease.LeaseMachine$Following")
                .or().haveFullyQualifiedName("dev.baton.core.lease.LeaseMachine$Leading")
                .should().dependOnClassesThat().haveFullyQualifiedName("dev.baton.core.time.Clock")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.baton.core.time.Scheduler")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.baton.core.store.CoordinationStore")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.baton.core.store.LeaseStore")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.baton.core.store.SessionStore")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.baton.core.ElectionMetrics")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.baton.core.lease.LeaseCalls")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.baton.core.lease.LeaseOutput")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.baton.core.lease.LeaseMembership")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.baton.core.lease.ArmedAcquire")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.baton.core.spi.EventDispatcher");
        rule.check(core);
    }

    @Test
    void coreDependsOnNoAdapter() {
        ArchRule rule = noClasses().that().resideInAPackage("dev.baton.core..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.baton.redis..", "dev.baton.server..",
                        "dev.baton.testkit..", "io.lettuce..", "io.netty..", "com.fasterxml..");
        rule.check(core);
    }

    @Test
    void publicApiSignaturesNameNoInternalType() {
        ArchRule methods = codeUnits().that(visibleOutsideTheirPackage()).and().areDeclaredInClassesThat().arePublic()
                .and().areDeclaredInClassesThat().resideInAnyPackage(API_PACKAGES)
                .should(nameNoInternalType());
        ArchRule fieldTypes = fields().that(visibleOutsideTheirPackage()).and().areDeclaredInClassesThat().arePublic()
                .and().areDeclaredInClassesThat().resideInAnyPackage(API_PACKAGES)
                .should(nameNoInternalType());
        methods.check(core);
        fieldTypes.check(core);
    }

    @Test
    void publicApiTypesDoNotExtendInternalOnes() {
        ArchRule rule = noClasses().that().arePublic().and().resideInAnyPackage(API_PACKAGES)
                .should().beAssignableTo(DescribedPredicate.describe("a type of an internal package",
                        (JavaClass type) -> type.getPackageName().contains(".internal")
                                && !type.getPackageName().startsWith("java")));
        rule.check(core);
    }

    /**
     * The arrows inside core point from the implementations to the API, the store contract and the backend SPI, never
     * back: a backend implementer sees {@code store}, {@code spi} and {@code time} without the lease election behind
     * them. The one exception is {@code Baton}, the entry point whose builder creates a {@code LeaseElection} and
     * attaches a {@code ClusterEventRecorder}.
     */
    @Test
    void theApiAndTheSpiDependOnNoImplementationExceptTheBuilder() {
        ArchRule rule = noClasses().that().resideInAnyPackage("dev.baton.core", "dev.baton.core.store",
                        "dev.baton.core.spi", "dev.baton.core.time", "dev.baton.core.fencing", INTERNAL)
                .and().haveNameNotMatching("dev\\.baton\\.core\\.Baton(\\$.*)?")
                .should().dependOnClassesThat().resideInAnyPackage(IMPLEMENTATIONS);
        rule.check(core);
    }

    /** Each implementation stands on the API alone: the in-memory store knows no lease election, and so on. */
    @Test
    void theImplementationsDoNotDependOnEachOther() {
        for (String implementation : IMPLEMENTATIONS) {
            String[] others = Arrays.stream(IMPLEMENTATIONS).filter(other -> !other.equals(implementation))
                    .toArray(String[]::new);
            ArchRule rule = noClasses().that().resideInAPackage(implementation)
                    .should().dependOnClassesThat().resideInAnyPackage(others);
            rule.check(core);
        }
    }

    @Test
    void onlyCoreUsesCoreInternals() {
        ArchRule rule = noClasses().that().resideOutsideOfPackage("dev.baton.core..")
                .should().dependOnClassesThat().resideInAPackage(INTERNAL)
                .allowEmptyShould(true);
        rule.check(core);
    }

    private static DescribedPredicate<JavaMember> visibleOutsideTheirPackage() {
        return DescribedPredicate.describe("public or protected", member ->
                member.getModifiers().contains(JavaModifier.PUBLIC)
                        || member.getModifiers().contains(JavaModifier.PROTECTED));
    }

    /** Return, parameter and field types, with their type arguments, all outside {@code ..internal..} packages. */
    private static <T extends JavaMember> ArchCondition<T> nameNoInternalType() {
        return new ArchCondition<>("name no type of an internal package in its signature") {
            @Override
            public void check(T member, ConditionEvents events) {
                List<JavaType> types = new ArrayList<>();
                if (member instanceof JavaCodeUnit unit) {
                    types.add(unit.getReturnType());
                    types.addAll(unit.getParameterTypes());
                } else if (member instanceof JavaField field) {
                    types.add(field.getType());
                }
                for (JavaType type : types) {
                    for (JavaClass raw : type.getAllInvolvedRawTypes()) {
                        if (raw.getPackageName().startsWith("dev.baton.core")
                                && raw.getPackageName().contains(".internal")) {
                            events.add(SimpleConditionEvent.violated(member, member.getFullName()
                                    + " names the internal type " + raw.getName()));
                        }
                    }
                }
            }
        };
    }
}

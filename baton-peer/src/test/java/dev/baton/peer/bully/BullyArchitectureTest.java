package dev.baton.peer.bully;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.baton.peer.PurityRules;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps the bully protocol a pure state machine (DESIGN §1, §4): no sockets, no threads, no clock reads, no global
 * randomness, no files, and nothing of the quorum protocol. Two classes are the driver side and are exempt: {@code
 * Bully} (wires the machine to an executor, the system clock and Netty) and {@code FileLeaderStore} (the file leader
 * store, with its own thread). And the phase objects work through their narrow context, never through the node that
 * dispatches to them.
 */
class BullyArchitectureTest {

    private static final PurityRules RULES = new PurityRules("dev.baton.peer.bully",
            "dev\\.baton\\.peer\\.bully\\.(Bully|FileLeaderStore)(\\$.*)?");

    private static JavaClasses bully;

    @BeforeAll
    static void importBully() {
        bully = RULES.classes();
    }

    @Test
    void theProtocolOpensNoSocketsAndDoesNotDependOnTheQuorumProtocol() {
        RULES.opensNoSockets("dev.baton.peer.quorum..").check(bully);
    }

    @Test
    void theProtocolStartsNoThreads() {
        RULES.startsNoThreads().check(bully);
    }

    @Test
    void theProtocolReadsNoClockAndUsesNoGlobalRandomness() {
        RULES.readsNoClockAndUsesNoGlobalRandomness().check(bully);
    }

    @Test
    void theProtocolTouchesNoFiles() {
        RULES.touchesNoFiles().check(bully);
    }

    /**
     * {@code BullyNode} only routes inputs to its phases ({@code JoinProcess}, {@code Founding}, {@code Candidacy},
     * {@code Leading}, {@code Phases}, {@code MemberMessages}, ...), which reach their node only through {@code
     * PhaseContext}. The node's nested {@code Phase} enum, the names of the phases, is shared vocabulary and allowed;
     * only the election facade, which creates the node, may hold it.
     */
    @Test
    void thePhasesDoNotDependOnTheNodeThatDispatchesToThem() {
        noClasses().that().resideInAPackage("dev.baton.peer.bully..")
                .and().haveNameNotMatching("dev\\.baton\\.peer\\.bully\\.(BullyNode|BullyElection)(\\$.*)?")
                .should().dependOnClassesThat().haveFullyQualifiedName("dev.baton.peer.bully.BullyNode")
                .check(bully);
    }
}

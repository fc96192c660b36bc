package dev.baton.peer.quorum;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.baton.peer.PurityRules;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps the quorum protocol a pure state machine (DESIGN §1, §4), as baton-core's ArchitectureTest does for the lease
 * engine: no sockets, no threads, no clock reads, no global randomness. Time, scheduling, randomness, the transport
 * and the durable state are handed in. Three classes are the driver side and are exempt: {@code Quorum} (wires the
 * machine to an executor, the system clock and Netty), {@code FileDurableState} (the file it saves votes in) and
 * {@code GroupCommitWriter} (the thread that writes them, so that the protocol's thread never waits for the disk).
 */
class QuorumArchitectureTest {

    private static final PurityRules RULES = new PurityRules("dev.baton.peer.quorum",
            "dev\\.baton\\.peer\\.quorum\\.(Quorum|FileDurableState|GroupCommitWriter)(\\$.*)?");

    private static JavaClasses quorum;

    @BeforeAll
    static void importQuorum() {
        quorum = RULES.classes();
    }

    @Test
    void theProtocolOpensNoSocketsAndUsesNoNetworkLibrary() {
        RULES.opensNoSockets().check(quorum);
    }

    @Test
    void theProtocolStartsNoThreads() {
        RULES.startsNoThreads().check(quorum);
    }

    @Test
    void theProtocolReadsNoClockAndUsesNoGlobalRandomness() {
        RULES.readsNoClockAndUsesNoGlobalRandomness().check(quorum);
    }

    @Test
    void theProtocolTouchesNoFiles() {
        RULES.touchesNoFiles().check(quorum);
    }

    /**
     * The phase objects (seeking, following, a leader's term, elections, the vote gate) and the proposer and leader
     * duties work through their narrow contexts ({@code NodeContext}, {@code Transitions}): none of them may reach
     * back into the node that dispatches to them. Only the election facade, which creates the node, and the
     * membership view it hands out hold it.
     */
    @Test
    void thePhasesDoNotDependOnTheNodeThatDispatchesToThem() {
        noClasses().that().resideInAPackage("dev.baton.peer.quorum..")
                .and().haveNameNotMatching(
                        "dev\\.baton\\.peer\\.quorum\\.(QuorumNode|QuorumElection|QuorumMembership)(\\$.*)?")
                .should().dependOnClassesThat().haveFullyQualifiedName("dev.baton.peer.quorum.QuorumNode")
                .check(quorum);
    }
}

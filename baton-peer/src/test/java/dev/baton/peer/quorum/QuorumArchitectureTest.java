package dev.baton.peer.quorum;

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
}

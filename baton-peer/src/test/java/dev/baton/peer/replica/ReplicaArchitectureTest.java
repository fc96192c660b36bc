package dev.baton.peer.replica;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.baton.peer.PurityRules;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps the replication rules ({@code ReplicaState}, {@code LeaderTerm}) pure state machines (DESIGN §1): no sockets,
 * threads, clock reads, global randomness or files, and nothing of either election protocol. The driver, {@code
 * ReplicatedWorkStore} (its own scheduler thread, the system clock by default), is exempt.
 */
class ReplicaArchitectureTest {

    private static final PurityRules RULES = new PurityRules("dev.baton.peer.replica",
            "dev\\.baton\\.peer\\.replica\\.ReplicatedWorkStore(\\$.*)?");

    private static JavaClasses replica;

    @BeforeAll
    static void importReplica() {
        replica = RULES.classes();
    }

    @Test
    void theReplicationOpensNoSocketsAndKnowsNoElectionProtocol() {
        RULES.opensNoSockets("dev.baton.peer.quorum..", "dev.baton.peer.bully..").check(replica);
    }

    @Test
    void theReplicationStartsNoThreads() {
        RULES.startsNoThreads().check(replica);
    }

    @Test
    void theReplicationReadsNoClockAndUsesNoGlobalRandomness() {
        RULES.readsNoClockAndUsesNoGlobalRandomness().check(replica);
    }

    @Test
    void theReplicationTouchesNoFiles() {
        RULES.touchesNoFiles().check(replica);
    }
}

package dev.baton.peer.bully;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.store.LeaderRecordStore;
import dev.baton.testkit.LeaderRecordStoreConformanceSuite;
import org.junit.jupiter.api.Test;

/** The stand-alone leader store keeps the leader record contract. */
class StandaloneLeaderStoreTest extends LeaderRecordStoreConformanceSuite {

    private StandaloneLeaderStore shared;

    /** Every client of one test is the same in-process store (nobody else can see it). */
    @Override
    protected LeaderRecordStore newStore() {
        if (shared == null) {
            shared = new StandaloneLeaderStore();
        }
        return shared;
    }

    @Test
    void describesItselfAsStandalone() {
        assertThat(new StandaloneLeaderStore().describe()).isEqualTo("standalone");
    }
}

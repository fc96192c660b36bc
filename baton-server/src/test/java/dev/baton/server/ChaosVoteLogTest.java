package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.peer.quorum.AcceptorState;
import dev.baton.peer.quorum.FileDurableState;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The vote-log faults a quorum node takes from the harness: each strikes the next save only. */
class ChaosVoteLogTest {

    @TempDir
    Path dataDir;

    @Test
    void aFailedFsyncThrowsThoughTheRecordMayHaveReachedTheDisk() {
        ChaosVoteLog log = new ChaosVoteLog(new FileDurableState(dataDir));
        log.store(version(1));
        log.failNextFsync();

        assertThatThrownBy(() -> log.store(version(2)))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("a fault the harness injected")
                .hasRootCauseMessage("Input/output error on fdatasync");
        assertThat(new FileDurableState(dataDir).load()).contains(version(2));
        log.store(version(3));
        assertThat(new FileDurableState(dataDir).load()).contains(version(3));
    }

    @Test
    void aLostWriteIsReportedDurableButOnlyTheNextSaveReachesTheDisk() {
        ChaosVoteLog log = new ChaosVoteLog(new FileDurableState(dataDir));
        log.store(version(1));
        log.loseNextWrite();

        log.store(version(2));
        assertThat(new FileDurableState(dataDir).load()).as("killed now, it would come back with 1")
                .contains(version(1));
        log.store(version(3));
        assertThat(new FileDurableState(dataDir).load()).contains(version(3));
    }

    @Test
    void aWithdrawnFaultStrikesNoSave() {
        ChaosVoteLog log = new ChaosVoteLog(new FileDurableState(dataDir));
        log.failNextFsync();
        log.loseNextWrite();
        log.withdraw();

        log.store(version(1));
        assertThat(new FileDurableState(dataDir).load()).contains(version(1));
    }

    private static AcceptorState version(long v) {
        return new AcceptorState(v, 0, true, 0, null, null, null, 0);
    }
}

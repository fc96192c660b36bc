package dev.baton.peer.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.peer.transport.PeerAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileDurableStateTest {

    @TempDir
    Path dataDir;

    @Test
    void aNewDataDirectoryHoldsNoState() {
        assertThat(new FileDurableState(dataDir.resolve("node")).load()).isEmpty();
        assertThat(dataDir.resolve("node")).isDirectory();
    }

    @Test
    void aStoredStateIsReadBackByTheNextInstance() throws Exception {
        AcceptorState state = new AcceptorState(7, 3, true, 7, new Ballot(7, 2, PeerAddress.parse("[::1]:7401")),
                new Ballot(7, 1, PeerAddress.of("10.0.0.2", 7400)), PeerAddress.of("10.0.0.2", 7400), 6);
        new FileDurableState(dataDir).store(AcceptorState.INITIAL);
        new FileDurableState(dataDir).store(state);

        assertThat(new FileDurableState(dataDir).load()).contains(state);
        assertThat(dataDir.resolve(FileDurableState.FILE_NAME + ".tmp")).doesNotExist();
        assertThat(Files.readString(dataDir.resolve(FileDurableState.FILE_NAME)))
                .startsWith("baton-quorum-state 1\nhighestVersion=7\n");
    }

    @Test
    void aDamagedFileStopsTheNodeInsteadOfForgettingItsVotes() throws Exception {
        Files.writeString(dataDir.resolve(FileDurableState.FILE_NAME), "baton-quorum-state 1\nhighestVersion=x\n",
                StandardCharsets.UTF_8);
        assertThatThrownBy(() -> new FileDurableState(dataDir).load())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is damaged");
        Files.writeString(dataDir.resolve(FileDurableState.FILE_NAME), "something else\n", StandardCharsets.UTF_8);
        assertThatThrownBy(() -> new FileDurableState(dataDir).load()).hasMessageContaining("first line");
    }

    @Test
    void aNodeRestartedOnItsDataDirectoryKeepsItsPromise() {
        FileDurableState file = new FileDurableState(dataDir);
        file.store(AcceptorState.INITIAL);
        PeerAddress proposer = PeerAddress.of("n2", 7400);
        Acceptor before = new Acceptor(file, new InlineEffects(file, null));
        before.prePropose(new Ballot(4, 3, proposer), QuorumMessage.Refusal.NONE, 0);

        FileDurableState reopened = new FileDurableState(dataDir);
        Acceptor after = new Acceptor(reopened, new InlineEffects(reopened, null));
        assertThat(after.startedWithoutState()).isFalse();
        assertThat(after.prePropose(new Ballot(4, 2, proposer), QuorumMessage.Refusal.NONE, 0).accepted()).isFalse();
        assertThat(after.highestVersion()).isEqualTo(4);
    }
}

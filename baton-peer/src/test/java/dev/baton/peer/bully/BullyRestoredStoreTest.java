package dev.baton.peer.bully;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.ElectionEvent;
import dev.baton.core.NodeInfo;
import dev.baton.peer.transport.PeerAddress;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A term is claimed once, even when the leader record file comes back older than the terms claimed since (restored
 * from an old copy) and every process restarted, so that nothing remembers them: real TCP nodes on loopback, the
 * system clock, a {@link FileLeaderStore} on a real file.
 */
class BullyRestoredStoreTest {

    private static final byte[] SECRET = "a shared secret of 32 bytes......".getBytes(StandardCharsets.UTF_8);
    private static final String GROUP = "restored";
    private static final Duration GENEROUS = Duration.ofSeconds(30);

    @TempDir
    Path directory;

    private final List<BullyElection> elections = new CopyOnWriteArrayList<>();
    private final List<FileLeaderStore> stores = new CopyOnWriteArrayList<>();
    /** Every term any node of either generation acquired. */
    private final List<Long> acquired = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() {
        elections.forEach(BullyElection::close);
        stores.forEach(FileLeaderStore::close);
    }

    @Test
    void aLeaderFileRestoredFromAnOldCopyAfterEveryProcessRestartedYieldsATermAboveEveryEarlierOne() throws Exception {
        Path file = directory.resolve("leader.json");
        BullyElection first = start(0);
        await().atMost(GENEROUS).until(first::isLeader);
        BullyElection second = start(1);
        await().atMost(GENEROUS).until(() -> second.processId() > 0);
        BullyElection third = start(2);
        await().atMost(GENEROUS).until(() -> third.processId() > 0);
        Path copy = Files.copy(file, directory.resolve("leader.json.copy"));

        // New terms after the copy: the leader closes (its members elect the next), twice.
        first.close();
        await().atMost(GENEROUS).until(third::isLeader);
        third.close();
        await().atMost(GENEROUS).until(second::isLeader);
        long last = second.leadership().orElseThrow().term();
        await().atMost(GENEROUS).until(() -> acquired.contains(last));
        assertThat(acquired).as("three leaderships, each with a new term").hasSize(3).doesNotHaveDuplicates();
        long newestBefore = acquired.stream().mapToLong(Long::longValue).max().orElseThrow();

        second.close();
        stores.forEach(FileLeaderStore::close);
        Files.copy(copy, file, StandardCopyOption.REPLACE_EXISTING);
        acquired.clear();

        // A new generation: new processes, new addresses; only the restored file says anything about the past.
        BullyElection restarted = start(3);
        await().atMost(GENEROUS).until(restarted::isLeader);

        assertThat(restarted.leadership().orElseThrow().term())
                .as("the first term claimed on the restored file is above every term claimed before")
                .isGreaterThan(newestBefore);
    }

    private BullyElection start(int index) throws IOException {
        FileLeaderStore store = new FileLeaderStore(directory.resolve("leader.json"));
        stores.add(store);
        BullyElection election = Bully.tcp(PeerAddress.of("127.0.0.1", freePort()))
                .group(GROUP)
                .config(BullyConfig.fast().build())
                .leaderStore(store)
                .node(NodeInfo.of("ignored", "node-" + index))
                .sharedSecret(SECRET)
                .build();
        elections.add(election);
        election.addListener(event -> {
            if (event instanceof ElectionEvent.LeadershipAcquired a) {
                acquired.add(a.leadership().term());
            }
        });
        election.start();
        return election;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}

package dev.baton.peer.bully;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.store.LeaderRecord;
import dev.baton.core.store.LeaderRecordStore;
import dev.baton.core.store.StoreException;
import dev.baton.testkit.LeaderRecordStoreConformanceSuite;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The file leader store keeps the leader record contract (every client of a test opens the same file). */
class FileLeaderStoreTest extends LeaderRecordStoreConformanceSuite {

    @TempDir
    Path directory;

    @Override
    protected LeaderRecordStore newStore() {
        return new FileLeaderStore(directory.resolve("leaders").resolve("leader.json"));
    }

    @Test
    void theFileIsReadableJsonThatSurvivesTheStore() throws Exception {
        Path file = directory.resolve("leaders").resolve("leader.json");
        try (FileLeaderStore one = new FileLeaderStore(file)) {
            get(one.writeLeader(new LeaderRecord("orders", 3, "127.0.0.1:7401", 5, "127.0.0.1:7401")));
        }

        assertThat(Files.readString(file)).isEqualTo("{\"format\":1,\"groups\":{\"orders\":{\"term\":3,"
                + "\"leaderId\":\"127.0.0.1:7401\",\"processId\":5,\"address\":\"127.0.0.1:7401\"}}}\n");
        try (FileLeaderStore again = new FileLeaderStore(file)) {
            assertThat(get(again.readLeader("orders"))).contains(
                    new LeaderRecord("orders", 3, "127.0.0.1:7401", 5, "127.0.0.1:7401"));
            assertThat(again.describe()).isEqualTo("file:" + file.toAbsolutePath());
        }
    }

    @Test
    void aDamagedFileIsReportedAndLeftAsItIs() throws Exception {
        Path file = directory.resolve("leader.json");
        Files.writeString(file, "{\"format\":1,\"groups\":{\"orders\":{\"term\":\"three\"}}}");
        try (FileLeaderStore store = new FileLeaderStore(file)) {
            assertThat(failure(store.readLeader("orders"))).isInstanceOf(StoreException.class)
                    .hasMessage("file:" + file + " is damaged (field 'term' missing or not a whole number); it is left"
                            + " as it is: move it away to start the groups in it afresh");
            assertThat(failure(store.writeLeader(new LeaderRecord("orders", 1, "a", 1, "h:1"))))
                    .isInstanceOf(StoreException.class);
        }
        assertThat(Files.readString(file)).contains("three");
        Files.write(file, new byte[] {(byte) 0xff, 0x00, 0x7b});
        try (FileLeaderStore store = new FileLeaderStore(file)) {
            assertThat(failure(store.readLeader("orders")).getMessage()).contains("is damaged");
        }
        Files.writeString(file, "{\"format\":2,\"groups\":{}}", StandardCharsets.UTF_8);
        try (FileLeaderStore store = new FileLeaderStore(file)) {
            assertThat(failure(store.readLeader("orders")).getMessage()).contains("unknown format 2, expected 1");
        }
    }

    @Test
    void aPathThatIsADirectoryFailsWithAStoreException() throws Exception {
        try (FileLeaderStore store = new FileLeaderStore(directory)) {
            assertThat(failure(store.readLeader("orders"))).isInstanceOf(StoreException.class)
                    .hasMessageContaining("cannot read");
        }
    }

    private static <T> T get(CompletableFuture<T> future) throws Exception {
        return future.get(10, TimeUnit.SECONDS);
    }

    private static Throwable failure(CompletableFuture<?> future) throws Exception {
        try {
            future.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("the call succeeded");
    }
}

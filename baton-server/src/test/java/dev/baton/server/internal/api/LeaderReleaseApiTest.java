package dev.baton.server.internal.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.memory.InMemoryStore;
import dev.baton.server.internal.api.HttpCalls.Reply;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code POST /cluster/leader/release}: the seed's manual leadership release, a graceful handover. */
class LeaderReleaseApiTest {

    private final InMemoryStore store = new InMemoryStore();
    private ApiNode first;
    private ApiNode second;

    @AfterEach
    void stop() {
        if (second != null) {
            second.close();
        }
        if (first != null) {
            first.close();
        }
    }

    @Test
    void theLeaderStepsDownAndAnotherNodeTakesOverUnderANewerTerm() throws Exception {
        first = ApiNode.start(store, "release", "first");
        assertThat(first.election().awaitElected(Duration.ofSeconds(10))).isTrue();
        second = ApiNode.start(store, "release", "second");
        await().atMost(Duration.ofSeconds(10)).until(() -> second.election().leader().isPresent());
        long term = first.election().leadership().orElseThrow().term();

        Reply onFollower = HttpCalls.post(second.url("/cluster/leader/release"));
        Reply onLeader = HttpCalls.post(first.url("/cluster/leader/release"));

        assertThat(onFollower.status()).isEqualTo(503);
        assertThat(onFollower.json().path("error").asText()).isEqualTo("not_leader");
        assertThat(onLeader.status()).as(onLeader.toString()).isEqualTo(200);
        assertThat(onLeader.json().path("released").asBoolean()).isTrue();
        assertThat(onLeader.json().path("term").asLong()).isEqualTo(term);
        assertThat(first.election().isLeader()).isFalse();
        await().atMost(Duration.ofSeconds(5)).until(() -> second.election().isLeader());
        assertThat(second.election().leadership().orElseThrow().term()).isGreaterThan(term);
        await().atMost(Duration.ofSeconds(5)).until(() ->
                HttpCalls.get(first.url("/cluster/leader")).json().path("leader_id").asText().equals("second"));
        Reply fromOldLeader = HttpCalls.put(first.url("/work/items/after-release"), ClusterApiTest.ITEM);
        assertThat(fromOldLeader.status()).isEqualTo(503);
        assertThat(fromOldLeader.header("X-Leader-Id")).isEqualTo("second");
        assertThat(fromOldLeader.header("X-Leader-Url")).isEqualTo(second.url());
    }
}

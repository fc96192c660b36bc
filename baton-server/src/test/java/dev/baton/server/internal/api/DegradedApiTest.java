package dev.baton.server.internal.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.memory.InMemoryStore;
import dev.baton.server.internal.api.HttpCalls.Reply;
import dev.baton.testkit.FaultInjectingStore;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The API while something is wrong: no leader yet, or the store unreachable. Reads keep answering (an operator needs
 * them most then) and say what is wrong; health turns 503 so a load balancer or a probe acts on it; writes are refused.
 */
class DegradedApiTest {

    private ApiNode node;

    @AfterEach
    void stop() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void withoutALeaderReadsAnswerHealthIsDegradedAndWritesAre503() {
        node = ApiNode.builder(new InMemoryStore(), "leaderless", "alone").withoutElection().start();

        Reply leader = HttpCalls.get(node.url("/cluster/leader"));
        Reply health = HttpCalls.get(node.url("/cluster/health"));
        Reply status = HttpCalls.get(node.url("/cluster/status"));
        Reply write = HttpCalls.put(node.url("/work/items/x"), ClusterApiTest.ITEM);

        assertThat(leader.status()).isEqualTo(503);
        assertThat(leader.json().path("error").asText()).isEqualTo("no_leader");
        assertThat(leader.json().path("message").asText()).isEqualTo("No leader elected");
        assertThat(health.status()).isEqualTo(503);
        assertThat(health.json().path("status").asText()).isEqualTo("degraded");
        assertThat(health.json().path("cluster_ready").asBoolean()).isFalse();
        assertThat(health.json().path("leader_id").isNull()).isTrue();
        assertThat(status.status()).isEqualTo(200);
        assertThat(status.json().path("leader_id").isNull()).isTrue();
        assertThat(status.json().path("leader_url").isNull()).isTrue();
        assertThat(status.json().path("term").asLong()).isZero();
        assertThat(write.status()).isEqualTo(503);
        assertThat(write.json().path("error").asText()).isEqualTo("no_leader");
        assertThat(write.header("Retry-After")).isEqualTo("1");
        assertThat(write.header("X-Leader-Id")).isNull();
    }

    @Test
    void withTheStoreDownEventsComeFromTheNodesOwnLogAndHealthIsDegraded() throws Exception {
        FaultInjectingStore store = new FaultInjectingStore(new InMemoryStore());
        node = ApiNode.start(store, "store-down", "lonely");
        assertThat(node.election().awaitElected(Duration.ofSeconds(10))).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> HttpCalls.get(node.url("/cluster/events")).json()
                .path("events").findValuesAsText("type").contains("leader_elected"));

        store.fail();
        await().atMost(Duration.ofSeconds(10)).until(() -> HttpCalls.get(node.url("/cluster/health")).status() == 503);

        Reply events = HttpCalls.get(node.url("/cluster/events?limit=10"));
        JsonNode health = HttpCalls.get(node.url("/cluster/health")).json();
        Reply status = HttpCalls.get(node.url("/cluster/status"));
        Reply items = HttpCalls.get(node.url("/work/items"));

        assertThat(events.status()).isEqualTo(200);
        assertThat(events.json().path("source").asText()).isEqualTo("node");
        assertThat(events.json().path("message").asText()).contains("this node's own");
        assertThat(events.json().path("events").findValuesAsText("type")).contains("election_started",
                "leader_elected");
        assertThat(events.json().path("events").findValuesAsText("node_id")).containsOnly("lonely");
        assertThat(health.path("status").asText()).isEqualTo("degraded");
        assertThat(status.status()).isEqualTo(200);
        assertThat(status.json().path("problem").asText()).isNotBlank();
        assertThat(status.json().path("cluster_ready").asBoolean()).isFalse();
        assertThat(items.status()).isEqualTo(503);
        assertThat(items.json().path("error").asText()).isEqualTo("store_unavailable");
        assertThat(items.body()).doesNotContain("Exception").doesNotContain("\tat ");
    }

    @Test
    void withTheStoreSilentForALeaseTtlAFollowerNamesNoLeaderAndSaysTheStoreIsUnavailable() throws Exception {
        FaultInjectingStore store = new FaultInjectingStore(new InMemoryStore());
        node = ApiNode.start(store, "store-silent", "first");
        assertThat(node.election().awaitElected(Duration.ofSeconds(10))).isTrue();
        try (ApiNode follower = ApiNode.start(store, "store-silent", "second")) {
            await().atMost(Duration.ofSeconds(10)).until(() -> HttpCalls.get(follower.url("/cluster/leader"))
                    .json().path("leader_id").asText().equals("first"));
            assertThat(HttpCalls.get(follower.url("/cluster/status")).json().path("store_reachable").asBoolean())
                    .isTrue();

            store.hang();
            // The leader demotes itself within a lease TTL; the follower must stop naming it by then too.
            await().atMost(Duration.ofSeconds(15)).until(() -> HttpCalls.get(follower.url("/cluster/leader"))
                    .status() == 503);

            Reply leader = HttpCalls.get(follower.url("/cluster/leader"));
            JsonNode status = HttpCalls.get(follower.url("/cluster/status")).json();
            assertThat(leader.json().path("error").asText()).isEqualTo("store_unavailable");
            assertThat(leader.json().path("message").asText())
                    .matches("This node has not heard from the store for \\d+(\\.\\d)? s, longer than its limit"
                            + " of 3 s, so it cannot tell whether the leader it last saw still leads");
            assertThat(leader.header("Retry-After")).isEqualTo("1");
            assertThat(status.path("leader_id").isNull()).isTrue();
            assertThat(status.path("store_reachable").asBoolean()).isFalse();
            assertThat(status.path("store_silent_seconds").asDouble()).isGreaterThan(3.0);
            assertThat(status.path("cluster_ready").asBoolean()).isFalse();

            store.heal();
            await().atMost(Duration.ofSeconds(15)).until(() -> HttpCalls.get(follower.url("/cluster/leader"))
                    .status() == 200);
        }
    }
}

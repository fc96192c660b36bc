package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testkit.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A store node whose Redis goes away says why it has no leader any more: after its leadership ends, a
 * {@code waiting-for-leader} line names the store's silence; once Redis is back it leads again and the lines stop.
 */
class StoreDownWaitingProcessTest {

    private static final Duration STEP = Duration.ofSeconds(40);

    private final NodeGroup nodes = new NodeGroup();
    private RedisServer redis;

    @AfterEach
    void stopEverything() {
        try {
            nodes.close();
        } finally {
            if (redis != null) {
                redis.close();
            }
        }
    }

    @Test
    void aNodeCutOffFromItsStoreSaysSo() {
        redis = RedisServer.start();
        NodeProcess node = nodes.start("n1", "--backend", redis.uri(), "--group", "store-down", "--profile", "fast");
        await().atMost(STEP).until(node::believesItLeads);
        assertThat(node.events("waiting-for-leader")).as("no line while a leader is known").isEmpty();

        redis.pause();
        try {
            await().atMost(STEP).until(() -> node.last("waiting-for-leader").isPresent());
        } finally {
            redis.resume();
        }

        assertThat(node.last("waiting-for-leader").orElseThrow().path("reason").asText()).as(node.describe())
                .startsWith("the store is unreachable: this node has not heard from the store for");
        await().atMost(STEP).until(node::believesItLeads);
    }
}

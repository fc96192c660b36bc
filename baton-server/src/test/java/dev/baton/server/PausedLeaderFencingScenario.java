package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.ElectionConfig;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.FencedValue;
import dev.baton.core.store.FencedWriteResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The failure fencing exists for: a leader frozen (SIGSTOP) for longer than its lease wakes up still holding its old
 * term. It must notice that its leadership expired locally, and none of its writes with the old term may be accepted
 * once the new leader has written.
 */
abstract class PausedLeaderFencingScenario {

    private static final String GROUP = "fencing";
    private static final Duration LEASE_TTL = ElectionConfig.fast().leaseTtl();

    private TestBackend backend;
    private final NodeGroup nodes = new NodeGroup();

    /** Starts the private server the nodes will share. */
    abstract TestBackend startBackend();

    @BeforeEach
    void startServer() {
        backend = startBackend();
    }

    @AfterEach
    void stopEverything() {
        try {
            nodes.close();
        } finally {
            backend.close();
        }
    }

    @Test
    void aLeaderPausedPastItsLeaseHasItsLateWritesRefused() throws Exception {
        for (String name : List.of("a", "b")) {
            nodes.start(name, "--backend", backend.uri(), "--group", GROUP, "--profile", "fast",
                    "--fenced-writes", "50ms");
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> nodes.leaders().size() == 1
                && accepted(nodes.leaders().get(0)).size() >= 3);
        NodeProcess old = nodes.leaders().get(0);
        NodeProcess successor = nodes.all().stream().filter(node -> node != old).findFirst().orElseThrow();
        long oldTerm = old.lastAcquiredTerm();

        old.sigstop();
        long stoppedAt = System.nanoTime();
        await().atMost(LEASE_TTL.plusSeconds(2)).pollInterval(Duration.ofMillis(10))
                .until(() -> successor.lastAcquiredTerm() > oldTerm && !accepted(successor).isEmpty());
        long newTerm = successor.lastAcquiredTerm();
        JsonNode firstNewWrite = accepted(successor).get(0);
        // Keep the old leader frozen for longer than a whole lease TTL while the new leader writes.
        await().atMost(LEASE_TTL.plusSeconds(5)).until(() -> accepted(successor).size() >= 5
                && System.nanoTime() - stoppedAt > LEASE_TTL.toNanos());
        old.sigcont();
        await().atMost(Duration.ofSeconds(5)).until(() -> old.last("leadership-lost").isPresent());
        int writesAtLoss = accepted(successor).size();
        // Give the woken node time to misbehave, if it would, while the new leader keeps writing.
        await().atMost(Duration.ofSeconds(5)).until(() -> accepted(successor).size() >= writesAtLoss + 5);

        JsonNode lost = old.last("leadership-lost").orElseThrow();
        assertThat(lost.path("term").asLong()).isEqualTo(oldTerm);
        assertThat(lost.path("reason").asText()).as(old.describe()).isEqualTo("EXPIRED_LOCALLY");
        assertThat(accepted(old)).as("the old leader's accepted writes").allSatisfy(write -> {
            assertThat(write.path("term").asLong()).isEqualTo(oldTerm);
            assertThat(NodeProcess.ts(write)).isBeforeOrEqualTo(NodeProcess.ts(firstNewWrite));
        });
        // By send time, not by output order: a write sent and accepted just before the freeze may have its verdict
        // printed after the loss, since the node only reads the reply once it runs again.
        assertThat(accepted(old)).as("writes the old leader sent after it knew it had lost the lease")
                .allSatisfy(write -> assertThat(NodeProcess.ts(write)).isBeforeOrEqualTo(NodeProcess.ts(lost)));
        assertThat(newTerm).isGreaterThan(oldTerm);
        assertAcceptedTermsNeverGoBack();

        try (CoordinationStore store = backend.connect()) {
            FencedWriteResult stale = store.registers().fencedWrite(GROUP, FencedWriter.REGISTER, old.name(), oldTerm,
                    "late".getBytes(StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS);
            assertThat(stale.accepted()).as("a write under the old term, straight to Redis").isFalse();
            assertThat(stale.currentTerm()).isGreaterThanOrEqualTo(newTerm);
            FencedValue value = store.registers().fencedRead(GROUP, FencedWriter.REGISTER).get(5, TimeUnit.SECONDS)
                    .orElseThrow();
            assertThat(value.term()).isEqualTo(newTerm);
        }
    }

    /** Over all nodes, ordered by when they were sent, accepted writes never go back to an older term. */
    private void assertAcceptedTermsNeverGoBack() {
        List<JsonNode> all = new ArrayList<>();
        nodes.all().forEach(node -> all.addAll(accepted(node)));
        all.sort(Comparator.comparing(NodeProcess::ts));
        long highestEarlier = Long.MIN_VALUE;
        long highestAtThisTs = Long.MIN_VALUE;
        Instant currentTs = null;
        for (JsonNode write : all) {
            Instant ts = NodeProcess.ts(write);
            if (!ts.equals(currentTs)) {
                highestEarlier = Math.max(highestEarlier, highestAtThisTs);
                currentTs = ts;
            }
            long term = write.path("term").asLong();
            assertThat(term).as("term of %s after accepted writes of term %d", write, highestEarlier)
                    .isGreaterThanOrEqualTo(highestEarlier);
            highestAtThisTs = Math.max(highestAtThisTs, term);
        }
    }

    private static List<JsonNode> accepted(NodeProcess node) {
        return node.events("fenced-write").stream().filter(PausedLeaderFencingScenario::isAcceptedWrite).toList();
    }

    private static boolean isAcceptedWrite(JsonNode line) {
        return line.path("event").asText().equals("fenced-write") && line.path("accepted").asBoolean();
    }

}

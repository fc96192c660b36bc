package dev.baton.server.internal.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.NodeInfo;
import dev.baton.core.memory.InMemoryStore;
import dev.baton.core.store.AcquireResult;
import dev.baton.http.LeaderGate;
import dev.baton.micrometer.MicrometerElectionMetrics;
import dev.baton.server.FixedAnswerMaps;
import dev.baton.server.internal.api.HttpCalls.Reply;
import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A leader that has been replaced but does not know it yet (its election runs on a scheduler this test does not
 * advance, as if the process had been paused) still passes its own leader check; its writes must then be refused by
 * the store's fence and answered 503, never acknowledged.
 */
class StaleTermApiTest {

    private static final String GROUP = "stale";

    private final FakeClock clock = new FakeClock();
    private final DeterministicScheduler scheduler = new DeterministicScheduler(clock);
    private final InMemoryStore store = new InMemoryStore();
    private Election election;
    private NodeApi api;
    private String url;

    @BeforeEach
    void startALeader() {
        int port = ApiNode.freePort();
        url = "http://127.0.0.1:" + port;
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        MicrometerElectionMetrics metrics = new MicrometerElectionMetrics(registry, Tags.empty(), clock);
        election = Baton.election(store).group(GROUP).node(NodeInfo.of("old-leader", "old").withApiAddress(url))
                .config(ElectionConfig.fast()).clock(clock).scheduler(scheduler).eventExecutor(Runnable::run)
                .metrics(metrics).build();
        api = NodeApi.create(new NodeApi.Settings("127.0.0.1", port, url, LeaderGate.Mode.FAILOVER,
                Optional.empty()), election, store, registry, metrics, Duration.ofSeconds(2), clock).start();
        election.start();
        scheduler.runUntilIdle();
        assertThat(election.isLeader()).isTrue();
    }

    @AfterEach
    void stop() {
        api.close();
        election.closeAsync();
        scheduler.runUntilIdle();
    }

    @Test
    void writesOfAReplacedLeaderAreRefusedByTheStoreAndNeverAcknowledged() {
        long oldTerm = election.leadership().orElseThrow().term();
        assertThat(HttpCalls.put(url + "/work/items/kept", ClusterApiTest.ITEM).status()).isEqualTo(201);

        assertThat(store.leases().release(GROUP, "old-leader", oldTerm).join()).isTrue();
        AcquireResult usurped = store.leases().acquire(GROUP, NodeInfo.of("usurper", "new"), Duration.ofSeconds(30))
                .join();
        long newTerm = ((AcquireResult.Granted) usurped).term();
        assertThat(election.leadership()).as("the old leader has not noticed yet").isPresent();

        Reply put = HttpCalls.put(url + "/work/items/late", ClusterApiTest.ITEM);
        Reply replace = HttpCalls.put(url + "/work/items/kept",
                "{\"rtspUrl\":\"rtsp://other/s\",\"modelId\":9,\"modelName\":\"late\"}");
        Reply delete = HttpCalls.delete(url + "/work/items/kept");

        for (Reply reply : new Reply[] {put, replace, delete}) {
            assertThat(reply.status()).as(reply.toString()).isEqualTo(503);
            assertThat(reply.json().path("error").asText()).isEqualTo("stale_term");
            assertThat(reply.json().path("message").asText()).contains(Long.toString(oldTerm))
                    .contains(Long.toString(newTerm));
        }
        assertThat(store.maps().mapGet(GROUP, NodeApi.WORK_ITEMS_MAP, "late").join()).isEmpty();
        assertThat(store.maps().mapGet(GROUP, NodeApi.WORK_ITEMS_MAP, "kept").join().orElseThrow().term())
                .isEqualTo(oldTerm);
    }

    @Test
    void aWriteWhoseTermEndedWithoutANewerOneSaysSoInsteadOfNamingItsOwnTermAsNewer() {
        // The serverless work store refuses a write whose term lost its majority with the write's own term.
        long term = election.leadership().orElseThrow().term();
        int port = ApiNode.freePort();
        String endedUrl = "http://127.0.0.1:" + port;
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        NodeApi ended = NodeApi.create(new NodeApi.Settings("127.0.0.1", port, endedUrl, LeaderGate.Mode.FAILOVER,
                Optional.empty()), election, Optional.of(store), Optional.of(new FixedAnswerMaps(() -> false)), store.describe(),
                registry, new MicrometerElectionMetrics(registry, Tags.empty(), clock), Duration.ofSeconds(2), clock,
                Optional.empty()).start();
        try {
            Reply put = HttpCalls.put(endedUrl + "/work/items/late", ClusterApiTest.ITEM);

            assertThat(put.status()).as(put.toString()).isEqualTo(503);
            assertThat(put.json().path("error").asText()).isEqualTo("stale_term");
            assertThat(put.json().path("message").asText()).contains("term " + term + ": the term ended")
                    .doesNotContain("is newer");
        } finally {
            ended.close();
        }
    }
}

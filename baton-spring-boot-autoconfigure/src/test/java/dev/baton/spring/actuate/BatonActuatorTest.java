package dev.baton.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.NodeInfo;
import dev.baton.core.StoreElection;
import dev.baton.core.memory.InMemoryStore;
import dev.baton.spring.autoconfigure.BatonActuatorAutoConfiguration;
import dev.baton.spring.autoconfigure.BatonAutoConfiguration;
import dev.baton.spring.autoconfigure.BatonMetricsAutoConfiguration;
import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import dev.baton.testkit.FaultInjectingStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class BatonActuatorTest {

    private final FakeClock clock = new FakeClock();
    private final DeterministicScheduler scheduler = new DeterministicScheduler(clock);
    private final FaultInjectingStore store = new FaultInjectingStore(new InMemoryStore(clock));

    @Test
    void withActuatorTheHealthTheEndpointAndTheMetersAreThere() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class,
                        BatonActuatorAutoConfiguration.class, BatonMetricsAutoConfiguration.class,
                        EndpointAutoConfiguration.class, MetricsAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
                .withPropertyValues("baton.backend=memory", "baton.group=reports",
                        "management.endpoints.web.exposure.include=health,baton")
                .run(context -> {
                    assertThat(context).hasSingleBean(BatonHealthIndicator.class).hasSingleBean(BatonEndpoint.class);
                    Election election = context.getBean(Election.class);
                    await().atMost(Duration.ofSeconds(10)).until(election::isLeader);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                        assertThat(registry.get("baton.is.leader").tag("group", "reports").gauge().value())
                                .isEqualTo(1.0);
                        assertThat(registry.get("baton.term").gauge().value())
                                .isEqualTo((double) election.leadership().orElseThrow().term());
                    });
                    assertThat(registry.find("baton.lease.margin").timer()).isNotNull();
                    assertThat(context.getBean(BatonHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
                });
    }

    @Test
    void withoutActuatorNothingOfItIsConfigured() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class,
                        BatonMetricsAutoConfiguration.class))
                .withPropertyValues("baton.backend=memory", "baton.group=reports")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(BatonHealthIndicator.class)
                        .doesNotHaveBean(MeterRegistry.class));
    }

    @Test
    void healthShowsTheLeaderTermAndMarginAndIsDownOnceTheStoreIsSilentTooLong() {
        StoreElection election = election("n1");
        BatonHealthIndicator indicator = new BatonHealthIndicator(election);
        Health leading = indicator.health();
        assertThat(leading.getStatus()).isEqualTo(Status.UP);
        assertThat(leading.getDetails()).containsEntry("role", "leader").containsEntry("leader", "n1")
                .containsEntry("term", election.leadership().orElseThrow().term())
                .containsEntry("storeReachable", true).containsKey("deadlineMarginMillis");

        store.fail();
        scheduler.advance(ElectionConfig.fast().storeContactLimit().plusSeconds(1));
        Health cutOff = indicator.health();
        assertThat(cutOff.getStatus()).isEqualTo(Status.DOWN);
        assertThat(cutOff.getDetails()).containsEntry("storeReachable", false).containsKey("problem")
                .doesNotContainKey("deadlineMarginMillis");
        store.heal();
        close(election);
    }

    @Test
    void theEndpointReleasesTheLeadershipAndSaysWhenThereIsNone() {
        try (InMemoryStore memory = new InMemoryStore();
                StoreElection election = Baton.election(memory).group("jobs").node(NodeInfo.of("n1", "n1"))
                        .config(ElectionConfig.fast()).releaseOnShutdown(false).build()) {
            election.start();
            await().atMost(Duration.ofSeconds(10)).until(election::isLeader);
            long term = election.leadership().orElseThrow().term();
            BatonEndpoint endpoint = new BatonEndpoint(election);
            assertThat(endpoint.status()).containsEntry("role", "leader").containsEntry("term", term);

            assertThat(endpoint.release()).containsEntry("released", true).containsEntry("term", term)
                    .doesNotContainKey("message");
            assertThat(election.leadership()).isEmpty();
            assertThat(endpoint.release()).containsEntry("released", false)
                    .containsEntry("message", "this node does not lead jobs");
        }
    }

    private StoreElection election(String id) {
        StoreElection election = Baton.election(store).group("jobs").node(NodeInfo.of(id, id))
                .config(ElectionConfig.fast()).clock(clock).scheduler(scheduler).eventExecutor(Runnable::run)
                .random(new Random(1)).build();
        election.start();
        scheduler.runUntilIdle();
        assertThat(election.isLeader()).isTrue();
        return election;
    }

    private void close(StoreElection election) {
        election.closeAsync();
        scheduler.runUntilIdle();
    }
}

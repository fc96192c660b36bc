package dev.baton.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.MemberState;
import dev.baton.core.MemberStatus;
import dev.baton.core.NodeInfo;
import dev.baton.core.memory.InMemoryStore;
import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The meters of one election on a fake clock and a deterministic scheduler: exact values, no waiting. */
class MicrometerElectionMetricsTest {

    private final FakeClock clock = new FakeClock();
    private final DeterministicScheduler scheduler = new DeterministicScheduler(clock);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MicrometerElectionMetrics metrics =
            new MicrometerElectionMetrics(registry, Tags.of("group", "g"), clock);

    @Test
    void leadershipTermChangesAndLeaderlessTimeFollowTheElection() {
        Election election = Baton.election(new InMemoryStore(clock)).group("g").node(NodeInfo.of("n1", "one"))
                .config(ElectionConfig.fast()).clock(clock).scheduler(scheduler).eventExecutor(Runnable::run)
                .metrics(metrics).build();
        metrics.bindTo(election);

        clock.advance(Duration.ofSeconds(2));
        election.start();
        scheduler.runUntilIdle();
        scheduler.advance(Duration.ofSeconds(5));

        long term = election.leadership().orElseThrow().term();
        assertThat(gauge("baton.is.leader")).isEqualTo(1.0);
        assertThat(gauge("baton.term")).isEqualTo(term);
        assertThat(registry.get("baton.leadership.changes").counter().count()).isEqualTo(1.0);
        assertThat(leaderless()).isCloseTo(2.0, within(1e-9));
        assertThat(registry.get("baton.store.call").tags("operation", "acquire", "outcome", "success").timer()
                .count()).isEqualTo(1);

        election.stepDown();
        scheduler.runUntilIdle();
        scheduler.advance(Duration.ofMillis(300));

        assertThat(gauge("baton.is.leader")).isEqualTo(0.0);
        assertThat(leaderless()).isCloseTo(2.3, within(1e-9));
        election.closeAsync();
        scheduler.runUntilIdle();
    }

    @Test
    void storeCallsRenewalsAndErrorsAreRecorded() {
        metrics.storeCall("renew", TimeUnit.MILLISECONDS.toNanos(4), true);
        metrics.storeCall("renew", TimeUnit.MILLISECONDS.toNanos(500), false);
        metrics.storeCall("a new operation", 1_000, false);
        metrics.leaseRenewed(TimeUnit.MILLISECONDS.toNanos(3), TimeUnit.MILLISECONDS.toNanos(1_800));

        assertThat(registry.get("baton.store.call").tags("operation", "renew", "outcome", "success").timer()
                .totalTime(TimeUnit.MILLISECONDS)).isEqualTo(4.0);
        assertThat(registry.get("baton.store.call").tags("operation", "renew", "outcome", "failure").timer()
                .count()).isEqualTo(1);
        assertThat(registry.get("baton.store.errors").tags("operation", "renew").counter().count()).isEqualTo(1.0);
        assertThat(registry.get("baton.store.errors").tags("operation", "acquire").counter().count()).isZero();
        assertThat(registry.get("baton.store.errors").tags("operation", "a new operation").counter().count())
                .isEqualTo(1.0);
        assertThat(registry.get("baton.lease.renew").timer().totalTime(TimeUnit.MILLISECONDS)).isEqualTo(3.0);
        assertThat(registry.get("baton.lease.margin").timer().totalTime(TimeUnit.MILLISECONDS)).isEqualTo(1_800.0);
    }

    @Test
    void membersAreCountedByState() {
        NodeInfo node = NodeInfo.of("a", "a");
        metrics.recordMembers(List.of(new MemberStatus(node, MemberState.ACTIVE),
                new MemberStatus(NodeInfo.of("b", "b"), MemberState.ACTIVE),
                new MemberStatus(NodeInfo.of("c", "c"), MemberState.UNREACHABLE)));

        assertThat(registry.get("baton.members").tag("state", "active").gauge().value()).isEqualTo(2.0);
        assertThat(registry.get("baton.members").tag("state", "unreachable").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get("baton.members").tag("state", "leaving").gauge().value()).isZero();

        metrics.recordMembers(List.of(new MemberStatus(node, MemberState.ACTIVE)));

        assertThat(registry.get("baton.members").tag("state", "active").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get("baton.members").tag("state", "unreachable").gauge().value()).isZero();
    }

    private double gauge(String name) {
        return registry.get(name).tag("group", "g").gauge().value();
    }

    private double leaderless() {
        return registry.get("baton.leaderless").functionCounter().count();
    }
}

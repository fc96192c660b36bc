package dev.baton.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.NodeState;
import dev.baton.core.StoreElection;
import dev.baton.core.fencing.FencedRegister;
import dev.baton.core.memory.InMemoryStore;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.ForwardingStore;
import dev.baton.core.store.Lease;
import dev.baton.spring.BatonLeadershipGrantedEvent;
import dev.baton.spring.BatonLeadershipRevokedEvent;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

class BatonAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class,
                    BatonFencingAutoConfiguration.class));

    @Test
    void oneBackendPropertyGivesAStoreAndAnElectionThatStartsWithTheContext() {
        runner.withPropertyValues("baton.backend=memory", "spring.application.name=orders-scheduler",
                "baton.node.id=node-1").run(context -> {
                    assertThat(context).hasSingleBean(CoordinationStore.class).hasSingleBean(StoreElection.class)
                            .hasSingleBean(FencedRegister.class);
                    StoreElection election = context.getBean(StoreElection.class);
                    assertThat(election.group()).isEqualTo("orders-scheduler");
                    assertThat(election.nodeId()).isEqualTo("node-1");
                    await().atMost(Duration.ofSeconds(10)).until(election::isLeader);
                });
    }

    @Test
    void theElectionBacksOffWhenTheApplicationDefinesItsOwn() {
        runner.withPropertyValues("baton.backend=memory", "baton.group=g")
                .withUserConfiguration(OwnElection.class).run(context -> {
                    assertThat(context).hasSingleBean(Election.class);
                    assertThat(context.getBean(Election.class).nodeId()).isEqualTo("own");
                });
    }

    @Test
    void anApplicationsOwnStoreGetsTheElectionBuiltOnIt() {
        runner.withPropertyValues("baton.group=g").withUserConfiguration(OwnStore.class).run(context -> {
            assertThat(context).hasSingleBean(CoordinationStore.class).hasSingleBean(StoreElection.class);
            assertThat(context.getBean(CoordinationStore.class)).isSameAs(context.getBean(OwnStore.class).store);
        });
    }

    @Test
    void grantedAndRevokedEventsCarryTheTermAndTheLeaseIsReleasedBeforeTheStoreCloses() {
        ObservedStore store = new ObservedStore();
        Recorder recorder = new Recorder();
        ConfigurableApplicationContext[] kept = new ConfigurableApplicationContext[1];
        runner.withPropertyValues("baton.group=orders")
                .withBean(CoordinationStore.class, () -> store, definition -> definition.setDestroyMethodName("close"))
                .withBean(Recorder.class, () -> recorder)
                .run(context -> {
                    kept[0] = context;
                    store.election = context.getBean(Election.class);
                    await().atMost(Duration.ofSeconds(10)).until(() -> !recorder.granted.isEmpty());
                    long term = recorder.granted.get(0).term();
                    assertThat(context.getBean(Election.class).leadership()).get()
                            .satisfies(leadership -> assertThat(leadership.term()).isEqualTo(term));
                });
        assertThat(kept[0].isActive()).isFalse();
        assertThat(recorder.revoked).singleElement().satisfies(revoked -> {
            assertThat(revoked.term()).isEqualTo(recorder.granted.get(0).term());
            assertThat(revoked.reason()).isEqualTo(LossReason.RELEASED);
        });
        // When the store was closed, the election had stopped and its lease was gone.
        assertThat(store.leaseAtClose).isEmpty();
        assertThat(store.electionStateAtClose).isEqualTo(NodeState.STOPPED);
    }

    @Test
    void disabledThereIsNoElectionAndNothingToConfigure() {
        runner.withPropertyValues("baton.enabled=false")
                .withBean(javax.sql.DataSource.class, () -> new org.springframework.jdbc.datasource
                        .SimpleDriverDataSource())
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Election.class)
                        .doesNotHaveBean(CoordinationStore.class)
                        .doesNotHaveBean(dev.baton.spring.fencing.JdbcFence.class));
    }

    @Test
    void aMissingBackendIsOneLineNamingTheProperty() {
        runner.withPropertyValues("baton.group=g").run(context -> {
            assertThat(context).hasFailed();
            assertThat(analysis(context.getStartupFailure()).getDescription())
                    .startsWith("baton.backend is not set: name where the leader is elected");
        });
    }

    @Test
    void anUnknownBackendListsTheFormsWithoutThePassword() {
        runner.withPropertyValues("baton.group=g", "baton.backend=zookeeper://app:s3cret@127.0.0.1:2181")
                .run(context -> assertThat(analysis(context.getStartupFailure()).getDescription())
                        .startsWith("baton.backend: unsupported backend 'zookeeper://***@127.0.0.1:2181' (expected "
                                + "memory, redis://HOST:PORT[/DB]")
                        .doesNotContain("s3cret"));
    }

    @Test
    void wrongTimingNamesWhatIsWrong() {
        runner.withPropertyValues("baton.backend=memory", "baton.group=g", "baton.lease-ttl=2s",
                "baton.renew-interval=5s").run(context -> assertThat(analysis(context.getStartupFailure())
                        .getDescription()).startsWith("baton timing: ").contains("renewInterval"));
        runner.withPropertyValues("baton.backend=memory", "baton.group=g", "baton.profile=slow")
                .run(context -> assertThat(analysis(context.getStartupFailure()).getDescription())
                        .isEqualTo("baton.profile: unknown profile 'slow' (expected default or fast)"));
    }

    @Test
    void aMissingGroupFallsBackToTheApplicationNameElseSaysSo() {
        runner.withPropertyValues("baton.backend=memory").run(context -> assertThat(
                analysis(context.getStartupFailure()).getDescription()).startsWith("baton.group is not set"));
    }

    @Test
    void theServerlessBackendsNameTheirMissingProperties() {
        runner.withPropertyValues("baton.backend=quorum", "baton.group=g").run(context -> assertThat(
                analysis(context.getStartupFailure()).getDescription()).startsWith("baton.backend=quorum needs "
                        + "baton.quorum.seeds"));
        runner.withPropertyValues("baton.backend=bully", "baton.group=g").run(context -> assertThat(
                analysis(context.getStartupFailure()).getDescription()).startsWith("baton.backend=bully needs "
                        + "baton.bully.leader-store"));
    }

    @Test
    void aBullyNodeWithAStandaloneLeaderStoreLeadsItsGroup() throws IOException {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        runner.withPropertyValues("baton.backend=bully", "baton.group=g", "baton.bully.leader-store=standalone",
                "baton.peer.listen=127.0.0.1:" + port, "baton.profile=fast").run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(CoordinationStore.class)
                            .doesNotHaveBean(FencedRegister.class);
                    Election election = context.getBean(Election.class);
                    await().atMost(Duration.ofSeconds(20)).until(election::isLeader);
                });
    }

    @Test
    void aOneNodeQuorumClusterLeadsItsGroupUnderItsPeerAddress() throws IOException {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        runner.withPropertyValues("baton.backend=quorum", "baton.group=g", "baton.peer.listen=127.0.0.1:" + port,
                "baton.quorum.seeds=127.0.0.1:" + port, "baton.quorum.cluster-size=1", "baton.profile=fast")
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(CoordinationStore.class);
                    Election election = context.getBean(Election.class);
                    assertThat(election.nodeId()).isEqualTo("127.0.0.1:" + port);
                    await().atMost(Duration.ofSeconds(20)).until(election::isLeader);
                });
    }

    private static FailureAnalysis analysis(Throwable failure) {
        Throwable cause = failure;
        while (cause != null && !(cause instanceof BatonConfigurationException)) {
            cause = cause.getCause();
        }
        assertThat(cause).as("a BatonConfigurationException in " + failure).isNotNull();
        return new BatonFailureAnalyzer().analyze(failure);
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnElection {
        @Bean(destroyMethod = "close")
        CoordinationStore store() {
            return new InMemoryStore();
        }

        @Bean(destroyMethod = "close")
        StoreElection election(CoordinationStore store) {
            return Baton.election(store).group("g").node(dev.baton.core.NodeInfo.of("own", "own"))
                    .releaseOnShutdown(false).build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnStore {
        final InMemoryStore store = new InMemoryStore();

        @Bean(destroyMethod = "close")
        CoordinationStore ownStore() {
            return store;
        }
    }

    /** Collects the leadership events. */
    static class Recorder {
        final List<BatonLeadershipGrantedEvent> granted = new CopyOnWriteArrayList<>();
        final List<BatonLeadershipRevokedEvent> revoked = new CopyOnWriteArrayList<>();

        @EventListener
        void on(BatonLeadershipGrantedEvent event) {
            granted.add(event);
        }

        @EventListener
        void on(BatonLeadershipRevokedEvent event) {
            revoked.add(event);
        }
    }

    /** An in-memory store that notes, when it is closed, the lease it still holds and the election's state. */
    static final class ObservedStore extends ForwardingStore {
        volatile Optional<Lease> leaseAtClose;
        volatile NodeState electionStateAtClose;
        volatile Election election;

        ObservedStore() {
            super(new InMemoryStore());
        }

        @Override
        public void close() {
            try {
                electionStateAtClose = election.state();
                leaseAtClose = leases().read("orders").get(5, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            super.close();
        }
    }
}

package dev.baton.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.SessionStore;
import dev.baton.testkit.EtcdCluster;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What is particular to etcd's sessions: a session is an etcd lease that every lease bound to it shares, so nothing
 * that ends one group's lease may revoke it, or every other group bound to the session would end too.
 */
class EtcdSessionsTest {

    private static final Duration LONG = Duration.ofSeconds(30);
    private static final NodeInfo A = NodeInfo.of("a", "a");

    private static EtcdCluster etcd;
    private static EtcdStore store;

    @BeforeAll
    static void start() {
        assumeTrue(EtcdCluster.whyUnavailable().isEmpty(), () -> EtcdCluster.whyUnavailable().orElseThrow());
        etcd = EtcdCluster.start();
        store = EtcdStore.connect(EtcdStoreOptions.builder().uri(EtcdTesting.uri(etcd)).sessions(true).build());
    }

    @AfterAll
    static void stop() {
        if (store != null) {
            store.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    private static long granted(AcquireResult result) {
        assertThat(result).isInstanceOf(AcquireResult.Granted.class);
        return ((AcquireResult.Granted) result).term();
    }

    @Test
    void aStoreOffersSessionsOnlyWhenTheOptionsTurnThemOn() {
        try (EtcdStore plain = EtcdStore.connect(EtcdTesting.uri(etcd))) {
            assertThat(plain.sessions()).isEmpty();
        }
        assertThat(store.sessions()).isPresent();
    }

    @Test
    void endingOneBoundLeaseInAnyWayLeavesTheSessionAndItsOtherGroupsAlone() {
        SessionStore sessions = store.sessions().orElseThrow();
        String group = "etcd-sessions-" + UUID.randomUUID();
        String session = sessions.open(A, LONG).join();
        long kept = granted(sessions.acquire(group + "-kept", session, A).join());
        long released = granted(sessions.acquire(group + "-released", session, A).join());
        long retaken = granted(sessions.acquire(group + "-retaken", session, A).join());
        long byNode = granted(sessions.acquire(group + "-by-node", session, A).join());

        assertThat(store.leases().renew(group + "-kept", "a", kept, LONG).join()).as("renew of a bound lease")
                .isFalse();
        assertThat(sessions.release(group + "-released", session, released).join()).isTrue();
        long ownTtl = granted(store.leases().acquire(group + "-retaken", A, LONG).join());
        assertThat(ownTtl).as("the same node takes its bound lease with a TTL of its own").isGreaterThan(retaken);
        assertThat(store.leases().release(group + "-by-node", "a", byNode).join()).as("released by node id").isTrue();

        assertThat(sessions.remaining(Set.of(session)).join()).containsKey(session);
        assertThat(sessions.keepAlive(session, LONG).join()).isTrue();
        assertThat(store.leases().read(group + "-kept").join()).hasValueSatisfying(lease -> {
            assertThat(lease.session()).isEqualTo(session);
            assertThat(lease.term()).isEqualTo(kept);
        });
        assertThat(store.leases().read(group + "-retaken").join()).hasValueSatisfying(lease ->
                assertThat(lease.boundToSession()).isFalse());
        assertThat(store.leases().read(group + "-released").join()).isEmpty();
        assertThat(store.leases().read(group + "-by-node").join()).isEmpty();
        assertThat(sessions.close(session).join()).isTrue();
        assertThat(store.leases().read(group + "-kept").join()).isEmpty();
    }
}

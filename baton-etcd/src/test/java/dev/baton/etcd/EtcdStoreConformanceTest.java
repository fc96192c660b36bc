package dev.baton.etcd;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.core.store.CoordinationStore;
import dev.baton.testkit.EtcdCluster;
import dev.baton.testkit.StoreConformanceSuite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The etcd store passes the same contract as every other backend, on a private three-member cluster. */
class EtcdStoreConformanceTest extends StoreConformanceSuite {

    private static EtcdCluster etcd;

    @BeforeAll
    static void startEtcd() {
        assumeTrue(EtcdCluster.whyUnavailable().isEmpty(), () -> EtcdCluster.whyUnavailable().orElseThrow());
        etcd = EtcdCluster.start();
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    @Override
    protected CoordinationStore newStore() {
        // Sessions are off by default on etcd (see EtcdStoreOptions.Builder#sessions); the contract is checked with them on.
        return EtcdStore.connect(EtcdStoreOptions.builder().uri(EtcdTesting.uri(etcd)).sessions(true).build());
    }
}

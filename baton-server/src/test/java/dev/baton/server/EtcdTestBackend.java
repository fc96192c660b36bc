package dev.baton.server;

import dev.baton.testkit.EtcdCluster;
import org.junit.jupiter.api.Assumptions;
import java.util.stream.Collectors;

/** A private three-member etcd cluster as a {@link TestBackend}: {@code etcd://} with every member's address. */
final class EtcdTestBackend implements TestBackend {

    private final EtcdCluster etcd;

    private EtcdTestBackend(EtcdCluster etcd) {
        this.etcd = etcd;
    }

    /** Starts the cluster; skips the calling test, with the reason, where etcd is not installed. */
    static EtcdTestBackend start() {
        Assumptions.assumeTrue(EtcdCluster.whyUnavailable().isEmpty(),
                () -> EtcdCluster.whyUnavailable().orElseThrow());
        return new EtcdTestBackend(EtcdCluster.start());
    }

    EtcdCluster cluster() {
        return etcd;
    }

    @Override
    public String uri() {
        return "etcd://" + etcd.clientEndpoints().stream().map(e -> e.substring(e.indexOf("//") + 2))
                .collect(Collectors.joining(","));
    }

    @Override
    public void close() {
        etcd.close();
    }
}

package dev.baton.etcd;

import dev.baton.testkit.EtcdCluster;
import java.util.stream.Collectors;

/** Test helpers for the etcd store. */
final class EtcdTesting {

    private EtcdTesting() {
    }

    /** {@code etcd://127.0.0.1:p0,127.0.0.1:p1,127.0.0.1:p2}: every member of {@code etcd}. */
    static String uri(EtcdCluster etcd) {
        return "etcd://" + etcd.clientEndpoints().stream().map(e -> e.substring(e.indexOf("//") + 2))
                .collect(Collectors.joining(","));
    }
}

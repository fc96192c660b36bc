package dev.baton.etcd.internal;

import dev.baton.core.spi.StoreConnector;
import dev.baton.core.store.CoordinationStore;
import dev.baton.etcd.EtcdStore;
import java.util.List;

/** Opens {@code etcd://} URIs for {@code Baton.connect}. */
public final class EtcdConnector implements StoreConnector {

    @Override
    public List<String> schemes() {
        return List.of("etcd");
    }

    @Override
    public List<String> forms() {
        return List.of("etcd://HOST:PORT[,HOST:PORT...][/PREFIX]");
    }

    @Override
    public CoordinationStore connect(String uri) {
        return EtcdStore.connect(uri);
    }
}

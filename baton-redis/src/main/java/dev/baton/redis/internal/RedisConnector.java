package dev.baton.redis.internal;

import dev.baton.core.spi.StoreConnector;
import dev.baton.core.store.CoordinationStore;
import dev.baton.redis.RedisStore;
import java.util.List;

/**
 * Opens {@code redis://}, {@code rediss://}, {@code redis-sentinel://} and {@code redis-cluster://} URIs for
 * {@code Baton.connect}.
 */
public final class RedisConnector implements StoreConnector {

    @Override
    public List<String> schemes() {
        return List.of("redis", "rediss", "redis-sentinel", "redis-cluster");
    }

    @Override
    public List<String> forms() {
        return List.of("redis://HOST:PORT[/DB]", "redis-sentinel://HOST:PORT[,HOST:PORT...][/DB]#MASTER",
                "redis-cluster://HOST:PORT[,HOST:PORT...]");
    }

    @Override
    public CoordinationStore connect(String uri) {
        return RedisStore.connect(uri);
    }
}

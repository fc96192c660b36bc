package dev.baton.bench.support;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** How the benchmarks create Redisson clients: single server, Redisson's defaults except smaller pools. */
public final class RedissonClients {

    private RedissonClients() {
    }

    /**
     * A new client for {@code uri}. The pools are smaller than Redisson's defaults (24 idle connections per client),
     * which only slow start-up here; nothing on the measured path depends on pool size with one caller per client.
     */
    public static RedissonClient create(String uri) {
        return create(uri, 5);
    }

    /**
     * As {@link #create(String)}, for a client whose {@code lock()} calls may wait on up to {@code 4 ×
     * subscriptionsPerConnection} locks at once (each waiting lock holds a subscription to its release channel;
     * Redisson's default is 5 per connection).
     */
    public static RedissonClient create(String uri, int subscriptionsPerConnection) {
        Config config = new Config();
        config.useSingleServer()
                .setAddress(uri)
                .setConnectionMinimumIdleSize(2)
                .setConnectionPoolSize(8)
                .setSubscriptionConnectionMinimumIdleSize(1)
                .setSubscriptionConnectionPoolSize(4)
                .setSubscriptionsPerConnection(subscriptionsPerConnection);
        return Redisson.create(config);
    }
}

package dev.baton.redis.internal;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** The Lettuce threads of one store, created and shut down with it (so closing a store leaves no threads behind). */
final class LettuceResources {

    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(2);

    private LettuceResources() {
    }

    /** {@code ioThreads} I/O and two computation threads; reconnects back off from 10 ms to 1 s. */
    static ClientResources create(int ioThreads) {
        return DefaultClientResources.builder()
                .ioThreadPoolSize(ioThreads)
                .computationThreadPoolSize(2)
                .reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2,
                        TimeUnit.MILLISECONDS))
                .build();
    }

    /** Shuts {@code client} and then {@code resources} down, each waiting up to a couple of seconds. */
    static void shutdown(AbstractRedisClient client, ClientResources resources) {
        try {
            client.shutdown(Duration.ZERO, SHUTDOWN_TIMEOUT);
        } finally {
            resources.shutdown(0, SHUTDOWN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).awaitUninterruptibly(
                    SHUTDOWN_TIMEOUT.toMillis());
        }
    }
}

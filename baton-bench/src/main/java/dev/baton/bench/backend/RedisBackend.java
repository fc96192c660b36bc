package dev.baton.bench.backend;

import dev.baton.bench.support.Environment;
import dev.baton.bench.support.RedisAdmin;
import dev.baton.core.store.CoordinationStore;
import dev.baton.redis.RedisStore;
import dev.baton.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A private {@code redis-server} (the testkit's {@link RedisServer}) with a {@link RedisAdmin} connection. */
public final class RedisBackend implements BenchBackend {

    private static final StorePath PATH = new StorePath(
            "EVALSHA release+PUBLISH on Redis, pub/sub message read by the winner's Lettuce I/O thread",
            "EVALSHA acquire; reply completed on the Lettuce I/O thread",
            "hop to the election's queue (a shared thread unless supplied); lease watch SUBSCRIBE sent, then"
                    + " store.acquire(); ElectionStarted emitted after it",
            "EVALSHA acquire (the register EVALSHA follows it on the same connection); reply on the Lettuce I/O"
                    + " thread");

    private final RedisServer server;
    private final RedisAdmin admin;

    private RedisBackend(RedisServer server, RedisAdmin admin) {
        this.server = server;
        this.admin = admin;
    }

    static RedisBackend start() {
        RedisServer server = RedisServer.start();
        try {
            return new RedisBackend(server, RedisAdmin.connect(server.uri()));
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    @Override
    public BackendKind kind() {
        return BackendKind.REDIS;
    }

    @Override
    public String uri() {
        return server.uri();
    }

    /** The server itself, for scenarios that look at Redis from the outside (MONITOR). */
    public RedisServer server() {
        return server;
    }

    /** A plain Lettuce connection for pub/sub counts, command statistics and raw reads. */
    public RedisAdmin admin() {
        return admin;
    }

    @Override
    public CoordinationStore connect() {
        return RedisStore.connect(server.uri());
    }

    @Override
    public String describe() {
        return Environment.redis(admin, server.uri());
    }

    @Override
    public String roundTripName() {
        return "PING";
    }

    @Override
    public String roundTripClient() {
        return "Lettuce sync";
    }

    @Override
    public void roundTrip() {
        admin.commands().ping();
    }

    @Override
    public PushProbe openPushProbe() {
        String channel = "bench-calibration";
        RedisClient client = RedisClient.create(server.uri());
        StatefulRedisPubSubConnection<String, String> subscriber = client.connectPubSub();
        BlockingQueue<Long> received = new LinkedBlockingQueue<>();
        subscriber.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String from, String message) {
                received.add(System.nanoTime());
            }
        });
        subscriber.sync().subscribe(channel);
        return new PushProbe() {
            @Override
            public String name() {
                return "PUBLISH -> pub/sub listener";
            }

            @Override
            public long sendAndAwait() throws InterruptedException {
                long sent = System.nanoTime();
                admin.commands().publish(channel, "x");
                Long at = received.poll(5, TimeUnit.SECONDS);
                if (at == null) {
                    throw new IllegalStateException("no message on " + channel + " within 5 s");
                }
                return at - sent;
            }

            @Override
            public void close() {
                subscriber.close();
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        };
    }

    @Override
    public StorePath path() {
        return PATH;
    }

    @Override
    public void close() {
        try {
            admin.close();
        } finally {
            server.close();
        }
    }
}

package dev.baton.bench.handover;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;

/**
 * The calibration point, a minimal hand-written lock: {@code SET key id NX PX} to take it, one script that
 * deletes the key if owned and {@code PUBLISH}es, and followers that retry the {@code SET NX} on every message. No
 * terms, no local deadline, no renewal, no registry: the least work a push handover over Redis can do with Lettuce.
 * Measuring it on the same machine tells how much of Baton's latency is Baton.
 *
 * <p>Everything runs on Lettuce's I/O threads; t1 is taken in the completion of the winning {@code SET NX}.
 */
public final class SetNxContenders implements Contenders {

    private static final int CONTENDERS = 3;
    private static final String RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then "
            + "redis.call('del', KEYS[1]); redis.call('publish', ARGV[2], ARGV[1]); return 1 end return 0";

    /** One contender: its own client, a command connection and a pub/sub connection. */
    private final class Contender {
        private final int index;
        private final String id;
        private final RedisClient client;
        private final StatefulRedisConnection<String, String> commands;
        private final StatefulRedisPubSubConnection<String, String> notices;
        private boolean contending;

        Contender(int index) {
            this.index = index;
            this.id = "contender-" + index;
            this.client = RedisClient.create(uri);
            this.commands = client.connect();
            this.notices = client.connectPubSub();
            notices.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    attempt();
                }
            });
            notices.sync().subscribe(channel);
        }

        synchronized void contend() {
            contending = true;
        }

        private synchronized boolean takeTurn() {
            return contending;
        }

        void attempt() {
            if (!takeTurn()) {
                return;
            }
            commands.async().set(key, id, SetArgs.Builder.nx().px(30_000)).thenAccept(reply -> {
                if ("OK".equals(reply)) {
                    long now = System.nanoTime();
                    // Stop contending before anyone can hear of it, so a retry still in flight cannot win later.
                    synchronized (this) {
                        contending = false;
                    }
                    sink.acquired(index, now);
                }
            });
        }

        void release() {
            sink.releasing();
            commands.async().eval(RELEASE, ScriptOutputType.INTEGER, new String[] {key}, id, channel);
        }

        void close() {
            notices.close();
            commands.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private final String uri;
    private final String key;
    private final String channel;
    private final Contender[] contenders = new Contender[CONTENDERS];
    private LeaderSink sink;

    /** Contenders for the lock {@code <name>:lock}, announcing releases on {@code <name>:released}. */
    public SetNxContenders(String uri, String name) {
        this.uri = uri;
        this.key = name + ":lock";
        this.channel = name + ":released";
    }

    @Override
    public String name() {
        return "SET NX + PUBLISH";
    }

    @Override
    public String note() {
        return "hand-written floor, Lettuce, t1 in SET NX completion";
    }

    @Override
    public void start(LeaderSink leaderSink) {
        this.sink = leaderSink;
        for (int i = 0; i < CONTENDERS; i++) {
            contenders[i] = new Contender(i);
        }
        for (Contender contender : contenders) {
            contender.contend();
            contender.attempt();
        }
    }

    @Override
    public void release(int contender) {
        contenders[contender].release();
    }

    @Override
    public void rejoin(int contender) {
        contenders[contender].contend();
        contenders[contender].attempt();
    }

    @Override
    public void close() {
        for (Contender contender : contenders) {
            if (contender != null) {
                contender.close();
            }
        }
    }
}

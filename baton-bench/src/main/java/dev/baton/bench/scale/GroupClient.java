package dev.baton.bench.scale;

import java.time.Duration;

/** One process's client of a system (a Baton store, a Redisson client), on which it opens its groups. */
interface GroupClient extends AutoCloseable {

    /** {@code n} groups named {@code prefix + i}, not started; {@code node} names this process in them. */
    GroupSet open(String prefix, int n, String node);

    /** The lease timings the system runs with, for table headers, e.g. {@code lease TTL 30 s, renewed every 10 s}. */
    String timings();

    /** How long a lease outlives a killed holder at most. */
    Duration leaseTtl();

    /** How often a held lease is renewed. */
    Duration renewInterval();

    @Override
    void close();
}

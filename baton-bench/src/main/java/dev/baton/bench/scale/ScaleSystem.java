package dev.baton.bench.scale;

import dev.baton.bench.backend.BackendKind;
import dev.baton.bench.backend.BenchBackend;
import dev.baton.bench.support.PeerVersions;

/** What the scale scenario measures, as {@code --candidates} names it: each on a private server of its own. */
enum ScaleSystem {

    BATON_REDIS("baton-redis", BackendKind.REDIS),
    REDISSON("redisson", BackendKind.REDIS),
    BATON_POSTGRES("baton-postgres", BackendKind.POSTGRES);

    private final String key;
    private final BackendKind backend;

    ScaleSystem(String key, BackendKind backend) {
        this.key = key;
        this.backend = backend;
    }

    String key() {
        return key;
    }

    BackendKind backend() {
        return backend;
    }

    /** The name in result tables. */
    String label() {
        return this == REDISSON ? "Redisson " + PeerVersions.redisson() + " RLock on Redis"
                : "Baton on " + backend.label();
    }

    /** A client of this system for one process that holds or waits on up to {@code groups} groups. */
    GroupClient connect(String uri, int groups) {
        return this == REDISSON ? new RedissonLocks(uri, groups) : new BatonGroups(BenchBackend.connect(uri));
    }

    static ScaleSystem parse(String key) {
        for (ScaleSystem system : values()) {
            if (system.key.equals(key)) {
                return system;
            }
        }
        throw new IllegalArgumentException("unknown system '" + key + "'");
    }
}

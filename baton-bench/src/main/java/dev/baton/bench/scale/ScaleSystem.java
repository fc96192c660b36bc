package dev.baton.bench.scale;

import dev.baton.bench.backend.BackendKind;
import dev.baton.bench.backend.BenchBackend;
import dev.baton.bench.support.PeerVersions;

/** What the scale scenario measures, as {@code --candidates} names it: each on a private server of its own. */
enum ScaleSystem {

    BATON_REDIS("baton-redis", BackendKind.REDIS),
    REDISSON("redisson", BackendKind.REDIS),
    BATON_POSTGRES("baton-postgres", BackendKind.POSTGRES),
    BATON_ETCD("baton-etcd", BackendKind.ETCD),
    JETCD_ELECTION("jetcd-election", BackendKind.ETCD);

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
        return switch (this) {
            case REDISSON -> "Redisson " + PeerVersions.redisson() + " RLock on Redis";
            // jetcd's jar names no version of its own; the docs take it from the build.
            case JETCD_ELECTION -> "etcd elections through jetcd";
            default -> "Baton on " + backend.label();
        };
    }

    /** A client of this system for one process that holds or waits on up to {@code groups} groups. */
    GroupClient connect(String uri, int groups) {
        return switch (this) {
            case REDISSON -> new RedissonLocks(uri, groups);
            case JETCD_ELECTION -> new JetcdElections(uri);
            default -> new BatonGroups(BenchBackend.connect(uri));
        };
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

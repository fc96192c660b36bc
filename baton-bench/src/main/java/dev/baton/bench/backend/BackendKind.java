package dev.baton.bench.backend;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** A store Baton can run on, as {@code --backend} names it. */
public enum BackendKind {

    /** {@code baton-redis} on a private {@code redis-server}. */
    REDIS("redis", "Redis"),
    /** {@code baton-postgres} on a private PostgreSQL. */
    POSTGRES("postgres", "PostgreSQL"),
    /** {@code baton-etcd} on a private three-member etcd cluster; only the scale scenario runs on it. */
    ETCD("etcd", "etcd");

    private final String key;
    private final String label;

    BackendKind(String key, String label) {
        this.key = key;
        this.label = label;
    }

    /** The name on the command line, e.g. {@code postgres}. */
    public String key() {
        return key;
    }

    /** The name in result tables, e.g. {@code PostgreSQL}. */
    public String label() {
        return label;
    }

    /**
     * What a scenario appends to its headings on this backend: nothing on Redis, so the Redis tables read as they did
     * before there was a choice, and {@code " on PostgreSQL"} otherwise.
     */
    public String headingSuffix() {
        return this == REDIS ? "" : " on " + label;
    }

    /**
     * The kind named {@code key}.
     *
     * @throws IllegalArgumentException naming the known kinds
     */
    public static BackendKind parse(String key) {
        for (BackendKind kind : values()) {
            if (kind.key.equals(key.trim().toLowerCase(Locale.ROOT))) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown backend '" + key + "' (known: "
                + Arrays.stream(values()).map(BackendKind::key).collect(Collectors.joining(", ")) + ")");
    }
}

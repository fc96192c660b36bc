package dev.baton.etcd;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How an {@link EtcdStore} connects, immutable and built with {@link #builder()}. Fields and defaults:
 * <ul>
 *   <li>{@code uri} (required): {@code etcd://host:port[,host:port…][/keyPrefix]}, every member's client address;
 *       the client spreads calls over them and moves to another member when one fails.</li>
 *   <li>{@code keyPrefix} ({@code baton/}): put before every key the store writes, so several applications can share
 *       one etcd; a path in the URI sets it too ({@code etcd://h:2379/orders} means {@code orders/}).</li>
 *   <li>{@code callTimeout} (2 s): the longest one store call (its few etcd requests together) may take before it
 *       fails with a timeout. Keep it below the lease TTL the elections use.</li>
 *   <li>{@code connectTimeout} (2 s): the longest a connection attempt to one member may take.</li>
 *   <li>{@code eventRetention} (10 000 events): how many of the newest cluster events each group's log keeps; at least
 *       {@link dev.baton.core.store.EventLogStore#MIN_RETAINED}.</li>
 * </ul>
 */
public final class EtcdStoreOptions {

    /** The URI scheme {@code baton node --backend} recognises for etcd. */
    public static final String SCHEME = "etcd";

    private final List<String> endpoints;
    private final String keyPrefix;
    private final Duration callTimeout;
    private final Duration connectTimeout;
    private final int eventRetention;
    private final boolean sessions;

    private EtcdStoreOptions(Builder b) {
        this.endpoints = List.copyOf(b.endpoints);
        this.keyPrefix = b.keyPrefix;
        this.callTimeout = b.callTimeout;
        this.connectTimeout = b.connectTimeout;
        this.eventRetention = b.eventRetention;
        this.sessions = b.sessions;
    }

    /** A builder with the defaults above; {@link Builder#uri} must be called. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this object's values, for variations. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.endpoints = new ArrayList<>(endpoints);
        b.keyPrefix = keyPrefix;
        b.callTimeout = callTimeout;
        b.connectTimeout = connectTimeout;
        b.eventRetention = eventRetention;
        b.sessions = sessions;
        return b;
    }

    /** Whether the store offers sessions ({@link Builder#sessions}); off by default. */
    public boolean sessions() {
        return sessions;
    }

    /** The members' client addresses as {@code http://host:port}, in the order given. */
    public List<String> endpoints() {
        return endpoints;
    }

    /** The prefix of every key, ending in {@code /}. */
    public String keyPrefix() {
        return keyPrefix;
    }

    /** The longest one store call may take; 2 s by default. */
    public Duration callTimeout() {
        return callTimeout;
    }

    /** The longest a connection attempt to one member may take; 2 s by default. */
    public Duration connectTimeout() {
        return connectTimeout;
    }

    /** How many of the newest cluster events each group keeps; 10,000 by default. */
    public int eventRetention() {
        return eventRetention;
    }

    /** {@code etcd://host:port,host:port/prefix}: the members and the key prefix; etcd URIs carry no secrets. */
    public String describe() {
        return SCHEME + "://" + String.join(",", endpoints.stream().map(e -> e.substring(e.indexOf("//") + 2))
                .toList()) + "/" + keyPrefix.substring(0, keyPrefix.length() - 1);
    }

    @Override
    public String toString() {
        return "EtcdStoreOptions{" + describe() + ", callTimeout=" + callTimeout + ", connectTimeout="
                + connectTimeout + ", eventRetention=" + eventRetention + "}";
    }

    /** Builds {@link EtcdStoreOptions}; {@link #build()} checks every field and names the one that is wrong. */
    public static final class Builder {

        private List<String> endpoints = List.of();
        private String keyPrefix = "baton/";
        private Duration callTimeout = Duration.ofSeconds(2);
        private Duration connectTimeout = Duration.ofSeconds(2);
        private int eventRetention = 10_000;
        private boolean sessions;

        private Builder() {
        }

        /**
         * The cluster as {@code etcd://host:port[,host:port…][/keyPrefix]}.
         *
         * @throws IllegalArgumentException naming what is wrong with the URI
         */
        public Builder uri(String uri) {
            Objects.requireNonNull(uri, "uri");
            String prefix = SCHEME + "://";
            if (!uri.startsWith(prefix)) {
                throw new IllegalArgumentException("an etcd URI starts with etcd://, was: " + uri);
            }
            String rest = uri.substring(prefix.length());
            int slash = rest.indexOf('/');
            String hosts = slash < 0 ? rest : rest.substring(0, slash);
            String path = slash < 0 ? "" : rest.substring(slash + 1);
            if (hosts.isEmpty()) {
                throw new IllegalArgumentException("an etcd URI names at least one host:port, was: " + uri);
            }
            List<String> parsed = new ArrayList<>();
            for (String hostPort : hosts.split(",", -1)) {
                parsed.add(endpoint(hostPort, uri));
            }
            this.endpoints = parsed;
            if (!path.isEmpty()) {
                keyPrefix(path);
            }
            return this;
        }

        /** The prefix of every key; a {@code /} is appended if it does not end in one. Must not be blank. */
        public Builder keyPrefix(String keyPrefix) {
            if (keyPrefix == null || keyPrefix.isBlank()) {
                throw new IllegalArgumentException("keyPrefix must not be blank");
            }
            this.keyPrefix = keyPrefix.endsWith("/") ? keyPrefix : keyPrefix + "/";
            return this;
        }

        /** The longest one store call may take (its etcd requests together); positive, default 2 s. */
        public Builder callTimeout(Duration callTimeout) {
            this.callTimeout = callTimeout;
            return this;
        }

        /** The longest a connection attempt to one member may take; positive, default 2 s. */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
            return this;
        }

        /** How many of the newest events each group's log keeps; at least 1,000, default 10,000. */
        public Builder eventRetention(int eventRetention) {
            this.eventRetention = eventRetention;
            return this;
        }

        /**
         * Whether to offer sessions (one etcd lease per process, kept alive, with every group lease of the process
         * bound to it); default false, so each group keeps a lease of its own, renewed by moving its key to a fresh
         * etcd lease. Turn it on only with etcd 3.4.28, 3.5.11 or later: earlier releases let an etcd leader that
         * stalled revoke, on waking, leases the new leader had kept alive (etcd-io/etcd issues 12528 and 15247), which
         * would end a session while its process still counts itself leader. A lease renewed by a fresh grant is not
         * exposed to that, since each grant goes through etcd's log.
         */
        public Builder sessions(boolean sessions) {
            this.sessions = sessions;
            return this;
        }

        /**
         * The options.
         *
         * @throws IllegalArgumentException naming the field that is missing or out of range
         */
        public EtcdStoreOptions build() {
            if (endpoints.isEmpty()) {
                throw new IllegalArgumentException("uri must be set (etcd://host:port[,host:port...])");
            }
            requirePositive(callTimeout, "callTimeout");
            requirePositive(connectTimeout, "connectTimeout");
            if (eventRetention < dev.baton.core.store.EventLogStore.MIN_RETAINED) {
                throw new IllegalArgumentException("eventRetention must be at least "
                        + dev.baton.core.store.EventLogStore.MIN_RETAINED + ", was " + eventRetention);
            }
            return new EtcdStoreOptions(this);
        }

        private static void requirePositive(Duration value, String field) {
            if (value == null || value.isZero() || value.isNegative()) {
                throw new IllegalArgumentException(field + " must be positive, was " + value);
            }
        }

        private static String endpoint(String hostPort, String uri) {
            if (hostPort.isBlank()) {
                throw new IllegalArgumentException("empty host in etcd URI: " + uri);
            }
            URI parsed;
            try {
                parsed = new URI("http://" + hostPort);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("malformed host:port '" + hostPort + "' in etcd URI: " + uri);
            }
            if (parsed.getHost() == null || parsed.getPort() < 1 || parsed.getRawPath() != null
                    && !parsed.getRawPath().isEmpty() || parsed.getUserInfo() != null) {
                throw new IllegalArgumentException("expected host:port, was '" + hostPort + "' in etcd URI: " + uri);
            }
            return "http://" + hostPort;
        }
    }
}

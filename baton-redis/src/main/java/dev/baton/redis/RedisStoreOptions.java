package dev.baton.redis;

import dev.baton.core.store.EventLogStore;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link RedisStore} connects and what it keeps, immutable and validated when built.
 *
 * <p>Every field, with its default:
 * <ul>
 *   <li>{@code uri} (required): {@code redis://[:password@]host[:port][/db]} or {@code rediss://…} for TLS.</li>
 *   <li>{@code keyPrefix} (empty): put before every group name inside the hash tag ({@code {<prefix><group>}:master})
 *       and before every {@link RedisStore#subscribe message channel}, so several applications can share one Redis.
 *       Must not contain braces, which would move the hash tag.</li>
 *   <li>{@code commandTimeout} (2 s): the longest one command may take before it fails with a timeout. Keep it
 *       below the lease TTL so a hung server cannot outlast a leadership.</li>
 *   <li>{@code connectTimeout} (2 s): the longest a TCP connect may take, at start and on each reconnect.</li>
 *   <li>{@code eventRetention} (10 000 events): how many of the newest cluster events each group's log keeps; older
 *       ones are dropped at each append. At least {@link EventLogStore#MIN_RETAINED}, which every store keeps.</li>
 * </ul>
 */
public final class RedisStoreOptions {

    private final String uri;
    private final RedisURI redisUri;
    private final String keyPrefix;
    private final Duration commandTimeout;
    private final Duration connectTimeout;
    private final int eventRetention;

    private RedisStoreOptions(Builder b, RedisURI redisUri) {
        this.uri = b.uri;
        this.redisUri = redisUri;
        this.keyPrefix = b.keyPrefix;
        this.commandTimeout = b.commandTimeout;
        this.connectTimeout = b.connectTimeout;
        this.eventRetention = b.eventRetention;
    }

    /** A builder with the defaults; {@code uri} must be set. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these options, to derive a variation. */
    public Builder toBuilder() {
        return new Builder().uri(uri).keyPrefix(keyPrefix).commandTimeout(commandTimeout)
                .connectTimeout(connectTimeout).eventRetention(eventRetention);
    }

    /** The URI as given; may contain a password, so never log it (use {@link RedisStore#describe()}). */
    public String uri() {
        return uri;
    }

    public String keyPrefix() {
        return keyPrefix;
    }

    public Duration commandTimeout() {
        return commandTimeout;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    /** How many of the newest events each group's event log keeps. */
    public int eventRetention() {
        return eventRetention;
    }

    /** The parsed URI, for the store; carries the password. */
    RedisURI redisUri() {
        return redisUri;
    }

    /** {@code redis://host:port/db}: the URI without credentials, for logs and error messages. */
    String describe() {
        return (redisUri.isSsl() ? "rediss://" : "redis://") + redisUri.getHost() + ":" + redisUri.getPort() + "/"
                + redisUri.getDatabase();
    }

    @Override
    public String toString() {
        return "RedisStoreOptions{uri=" + describe() + ", keyPrefix='" + keyPrefix + "', commandTimeout="
                + commandTimeout + ", connectTimeout=" + connectTimeout + ", eventRetention=" + eventRetention + "}";
    }

    /** Collects and validates {@link RedisStoreOptions}. */
    public static final class Builder {

        private String uri;
        private String keyPrefix = "";
        private Duration commandTimeout = Duration.ofSeconds(2);
        private Duration connectTimeout = Duration.ofSeconds(2);
        private int eventRetention = 10_000;

        private Builder() {}

        /** Where Redis is: {@code redis://[:password@]host[:port][/db]}. Required. */
        public Builder uri(String uri) {
            this.uri = uri;
            return this;
        }

        /** Prefix for group keys and message channels; default empty. */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
            return this;
        }

        /** Timeout of each command; default 2 s. */
        public Builder commandTimeout(Duration commandTimeout) {
            this.commandTimeout = commandTimeout;
            return this;
        }

        /** Timeout of each TCP connect; default 2 s. */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
            return this;
        }

        /** Events kept per group, newest first; default 10 000, at least {@link EventLogStore#MIN_RETAINED}. */
        public Builder eventRetention(int eventRetention) {
            this.eventRetention = eventRetention;
            return this;
        }

        /**
         * Validates and builds.
         *
         * @throws IllegalArgumentException naming the first invalid field
         */
        public RedisStoreOptions build() {
            if (uri == null || uri.isBlank()) {
                throw new IllegalArgumentException("uri is required, e.g. redis://127.0.0.1:6379");
            }
            Objects.requireNonNull(keyPrefix, "keyPrefix must not be null (use \"\" for none)");
            if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
                throw new IllegalArgumentException("keyPrefix must not contain '{' or '}', which would move the "
                        + "hash tag: " + keyPrefix);
            }
            requirePositive(commandTimeout, "commandTimeout");
            requirePositive(connectTimeout, "connectTimeout");
            if (eventRetention < EventLogStore.MIN_RETAINED) {
                throw new IllegalArgumentException("eventRetention must be at least " + EventLogStore.MIN_RETAINED
                        + " (the event log contract's minimum), was " + eventRetention);
            }
            return new RedisStoreOptions(this, parse(uri));
        }

        private static RedisURI parse(String uri) {
            if (!uri.startsWith("redis://") && !uri.startsWith("rediss://")) {
                throw new IllegalArgumentException("uri must start with redis:// or rediss://, was "
                        + withoutCredentials(uri));
            }
            try {
                return RedisURI.create(uri);
            } catch (RuntimeException e) {
                // Not chained: Lettuce's message may quote the URI, password included.
                throw new IllegalArgumentException("uri is not a valid Redis URI: " + withoutCredentials(uri));
            }
        }

        private static void requirePositive(Duration value, String field) {
            if (value == null || value.isZero() || value.isNegative()) {
                throw new IllegalArgumentException(field + " must be positive, was " + value);
            }
        }

        /** Drops a {@code user:password@} part so a bad URI can be shown in a message. */
        private static String withoutCredentials(String uri) {
            return uri.replaceFirst("//[^/@]*@", "//");
        }
    }
}

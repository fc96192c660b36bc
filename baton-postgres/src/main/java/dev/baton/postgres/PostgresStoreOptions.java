package dev.baton.postgres;

import dev.baton.core.store.EventLogStore;
import dev.baton.postgres.internal.PgTarget;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * How a {@link PostgresStore} connects and what it may do to the database; immutable and validated when built.
 *
 * <p>Every field, with its default:
 * <ul>
 *   <li>{@code uri}: {@code postgresql://USER[:PASSWORD]@HOST[:PORT]/DB[?schema=NAME]} (also {@code postgres://},
 *       or {@code jdbc:postgresql://HOST[:PORT]/DB?user=…&password=…}). User and password may be percent-encoded;
 *       other parameters (e.g. {@code sslmode=require}) are passed to pgjdbc. Several {@code HOST:PORT} pairs
 *       separated by commas (a primary and its standbys) default to {@code targetServerType=primary}. Either this
 *       or {@code jdbcUrl}.</li>
 *   <li>{@code jdbcUrl} with {@code user} and {@code password}: the JDBC form. {@code user} and {@code password}, if
 *       set, also override those in {@code uri}.</li>
 *   <li>{@code schema} ({@code baton}, or the URI's {@code schema} parameter): the PostgreSQL schema holding Baton's
 *       tables; lower-case letters, digits and underscores, at most 48 characters.</li>
 *   <li>{@code createSchema} (true): create the schema and tables at start if missing (idempotent, safe to race). If
 *       false, the store only checks that they exist at {@value PostgresStore#SCHEMA_VERSION} and fails naming what
 *       is missing; apply {@value PostgresStore#SCHEMA_RESOURCE} and the later versions' scripts yourself.</li>
 *   <li>{@code poolSize} (4): connections in the store's pool, and threads that run its statements.</li>
 *   <li>{@code connectTimeout} (2 s, at least 250 ms): the longest the store waits for a connection, new or pooled.</li>
 *   <li>{@code statementTimeout} (2 s): PostgreSQL's {@code statement_timeout} for each statement; a server that does
 *       not answer at all is given up on shortly after. Keep it below the lease TTL.</li>
 *   <li>{@code eventRetention} (10 000, at least {@link EventLogStore#MIN_RETAINED}): events kept per group in
 *       {@code cluster_events}; older rows are pruned.</li>
 *   <li>{@code listenReconnectInterval} (1 s): how long the LISTEN connection waits before reconnecting after it
 *       dropped. Elections poll meanwhile, so a lost connection delays failover by at most their check
 *       interval.</li>
 *   <li>{@code applicationName} ({@code baton}): PostgreSQL's {@code application_name} of the pool's connections;
 *       the LISTEN connection uses it with {@code :listen} appended. Shows in {@code pg_stat_activity}.</li>
 * </ul>
 */
public final class PostgresStoreOptions {

    /** The schema used when neither {@link Builder#schema} nor the URI names one. */
    public static final String DEFAULT_SCHEMA = "baton";

    private static final Pattern SCHEMA_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,47}");
    private static final Duration MIN_CONNECT_TIMEOUT = Duration.ofMillis(250);

    private final Builder source;
    private final PgTarget target;
    private final String schema;

    private PostgresStoreOptions(Builder b, PgTarget target, String schema) {
        this.source = b.copy();
        this.target = target;
        this.schema = schema;
    }

    /** A builder with the defaults; {@code uri} or {@code jdbcUrl} must be set. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these options, to derive a variation. */
    public Builder toBuilder() {
        return source.copy();
    }

    public String schema() {
        return schema;
    }

    public boolean createSchema() {
        return source.createSchema;
    }

    public int poolSize() {
        return source.poolSize;
    }

    public Duration connectTimeout() {
        return source.connectTimeout;
    }

    public Duration statementTimeout() {
        return source.statementTimeout;
    }

    public int eventRetention() {
        return source.eventRetention;
    }

    public Duration listenReconnectInterval() {
        return source.listenReconnectInterval;
    }

    public String applicationName() {
        return source.applicationName;
    }

    /** The user the store logs in as. */
    public String user() {
        return target.user();
    }

    /** Where to connect, with the password; for the store only. */
    PgTarget target() {
        return target;
    }

    /** {@code postgresql://user@host:port/db?schema=name}: never the password. */
    public String describe() {
        return target.describe(schema);
    }

    @Override
    public String toString() {
        return "PostgresStoreOptions{" + describe() + ", createSchema=" + createSchema() + ", poolSize=" + poolSize()
                + ", connectTimeout=" + connectTimeout() + ", statementTimeout=" + statementTimeout()
                + ", eventRetention=" + eventRetention() + ", listenReconnectInterval=" + listenReconnectInterval()
                + ", applicationName=" + applicationName() + "}";
    }

    /** Collects and validates {@link PostgresStoreOptions}. */
    public static final class Builder {

        private String uri;
        private String jdbcUrl;
        private String user;
        private String password;
        private String schema;
        private boolean createSchema = true;
        private int poolSize = 4;
        private Duration connectTimeout = Duration.ofSeconds(2);
        private Duration statementTimeout = Duration.ofSeconds(2);
        private int eventRetention = 10_000;
        private Duration listenReconnectInterval = Duration.ofSeconds(1);
        private String applicationName = "baton";

        private Builder() {}

        /** {@code postgresql://USER[:PASSWORD]@HOST[:PORT]/DB[?schema=NAME]} or {@code jdbc:postgresql://…}. */
        public Builder uri(String value) {
            this.uri = value;
            return this;
        }

        /** {@code jdbc:postgresql://HOST[:PORT]/DB}, with {@link #user} and {@link #password}. */
        public Builder jdbcUrl(String value) {
            this.jdbcUrl = value;
            return this;
        }

        /** The user to log in as; overrides one in the URI. */
        public Builder user(String value) {
            this.user = value;
            return this;
        }

        /** The password; overrides one in the URI. Never logged or shown. */
        public Builder password(String value) {
            this.password = value;
            return this;
        }

        /** The schema holding Baton's tables; overrides the URI's {@code schema} parameter. Default {@code baton}. */
        public Builder schema(String value) {
            this.schema = value;
            return this;
        }

        /** Whether to create missing tables at start; default true. */
        public Builder createSchema(boolean value) {
            this.createSchema = value;
            return this;
        }

        /** Pooled connections and statement threads; default 4. */
        public Builder poolSize(int value) {
            this.poolSize = value;
            return this;
        }

        /** The longest wait for a connection; default 2 s, at least 250 ms. */
        public Builder connectTimeout(Duration value) {
            this.connectTimeout = value;
            return this;
        }

        /** PostgreSQL's {@code statement_timeout} for each statement; default 2 s. */
        public Builder statementTimeout(Duration value) {
            this.statementTimeout = value;
            return this;
        }

        /** Events kept per group; default 10 000, at least {@link EventLogStore#MIN_RETAINED}. */
        public Builder eventRetention(int value) {
            this.eventRetention = value;
            return this;
        }

        /** Pause before the LISTEN connection reconnects; default 1 s. */
        public Builder listenReconnectInterval(Duration value) {
            this.listenReconnectInterval = value;
            return this;
        }

        /** {@code application_name} of the store's connections; default {@code baton}. */
        public Builder applicationName(String value) {
            this.applicationName = value;
            return this;
        }

        /**
         * Validates and builds.
         *
         * @throws IllegalArgumentException naming the first invalid field (and never quoting a password)
         */
        public PostgresStoreOptions build() {
            PgTarget target = target();
            String schemaName = schema != null ? schema : target.schema() != null ? target.schema() : DEFAULT_SCHEMA;
            if (!SCHEMA_NAME.matcher(schemaName).matches()) {
                throw new IllegalArgumentException("schema must be lower-case letters, digits and underscores, "
                        + "starting with a letter or underscore, at most 48 characters; was '" + schemaName + "'");
            }
            if (poolSize < 1 || poolSize > 64) {
                throw new IllegalArgumentException("poolSize must be within 1..64, was " + poolSize);
            }
            requirePositive(connectTimeout, "connectTimeout");
            if (connectTimeout.compareTo(MIN_CONNECT_TIMEOUT) < 0) {
                throw new IllegalArgumentException("connectTimeout must be at least 250 ms (HikariCP's minimum), was "
                        + connectTimeout);
            }
            requirePositive(statementTimeout, "statementTimeout");
            if (statementTimeout.toMillis() < 1 || statementTimeout.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("statementTimeout must be between 1 ms and 24 days, was "
                        + statementTimeout);
            }
            if (eventRetention < EventLogStore.MIN_RETAINED) {
                throw new IllegalArgumentException("eventRetention must be at least " + EventLogStore.MIN_RETAINED
                        + " (EventLogStore.MIN_RETAINED), was " + eventRetention);
            }
            requirePositive(listenReconnectInterval, "listenReconnectInterval");
            if (applicationName == null || applicationName.isBlank()) {
                throw new IllegalArgumentException("applicationName must not be blank");
            }
            return new PostgresStoreOptions(this, target, schemaName);
        }

        private PgTarget target() {
            boolean hasUri = uri != null && !uri.isBlank();
            boolean hasJdbc = jdbcUrl != null && !jdbcUrl.isBlank();
            if (hasUri && hasJdbc) {
                throw new IllegalArgumentException("set either uri or jdbcUrl, not both");
            }
            if (!hasUri && !hasJdbc) {
                throw new IllegalArgumentException("uri is required, e.g. postgresql://baton:secret@127.0.0.1:5432/app"
                        + " (or set jdbcUrl, user and password)");
            }
            PgTarget parsed;
            if (hasUri) {
                parsed = PgTarget.parse(uri, "uri");
            } else {
                if (!jdbcUrl.startsWith("jdbc:postgresql://")) {
                    throw new IllegalArgumentException("jdbcUrl must start with jdbc:postgresql://, was "
                            + PgTarget.withoutCredentials(jdbcUrl));
                }
                parsed = PgTarget.parse(jdbcUrl, "jdbcUrl");
            }
            PgTarget target = parsed.withCredentials(user, password);
            if (target.user() == null || target.user().isBlank()) {
                throw new IllegalArgumentException("user is required: put it in the uri (postgresql://USER@HOST/DB) "
                        + "or set user(...)");
            }
            return target;
        }

        private static void requirePositive(Duration value, String field) {
            if (value == null || value.isZero() || value.isNegative()) {
                throw new IllegalArgumentException(field + " must be positive, was " + value);
            }
        }

        private Builder copy() {
            Builder b = new Builder();
            b.uri = uri;
            b.jdbcUrl = jdbcUrl;
            b.user = user;
            b.password = password;
            b.schema = schema;
            b.createSchema = createSchema;
            b.poolSize = poolSize;
            b.connectTimeout = connectTimeout;
            b.statementTimeout = statementTimeout;
            b.eventRetention = eventRetention;
            b.listenReconnectInterval = listenReconnectInterval;
            b.applicationName = applicationName;
            return b;
        }
    }
}

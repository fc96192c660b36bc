package dev.baton.work.source;

import dev.baton.core.Registration;
import dev.baton.work.InvalidWorkItemException;
import dev.baton.work.WorkItem;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Desired items from a SQL query (seed 001's {@code regenerateDesiredStateFromDatabase}: "the database is the single
 * source of truth"): every row is one item. The query runs whole on every load, on a connection from the
 * {@link DataSource} (e.g. a HikariCP pool), with a query timeout.
 *
 * <p>By default rows are mapped by column name ({@link #COLUMNS}): {@code subscription_identifier} (or
 * {@code subscriptionIdentifier}), {@code rtsp_url}, {@code model_id}, {@code model_name} are required;
 * {@code model_url}, {@code snapshot_url}, {@code snapshot_interval} (ms), {@code crop_x1}, {@code crop_y1},
 * {@code crop_x2}, {@code crop_y2}, {@code weight} and {@code created_at} are optional. Names are matched ignoring
 * case and underscores, so {@code rtspUrl} and {@code RTSP_URL} work too. For example:
 *
 * <pre>{@code
 * SELECT d.id || ';' || c.id AS subscription_identifier, c.rtsp_url, m.id AS model_id, m.name AS model_name,
 *        d.crop_x1, d.crop_y1, d.crop_x2, d.crop_y2
 *   FROM display d JOIN camera c ON c.id = d.camera_id JOIN playlist p ON p.id = d.playlist_id
 *   JOIN model m ON m.id = p.model_id
 * }</pre>
 *
 * <p>A row that is not a valid item (a missing field, a crop box with {@code x2 <= x1}, ...) is skipped and logged
 * with its id and the reason; a query that fails, or lacks a required column, fails the whole load (the leader then
 * keeps its previous desired state).
 *
 * <p>On PostgreSQL, {@link Builder#notifyChannel} makes changes reach the workers within moments: the leader keeps
 * one connection listening on the channel ({@code LISTEN}), and a trigger on the tables the query reads sends a
 * notification on every change. For example, for the query above:
 *
 * <pre>{@code
 * CREATE OR REPLACE FUNCTION baton_desired_state_changed() RETURNS trigger LANGUAGE plpgsql AS $$
 * BEGIN
 *   PERFORM pg_notify('baton_desired_state', TG_TABLE_NAME);
 *   RETURN NULL;
 * END $$;
 * CREATE TRIGGER display_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON display
 *   FOR EACH STATEMENT EXECUTE FUNCTION baton_desired_state_changed();
 * -- the same for camera, playlist and model
 * }</pre>
 *
 * <p>A notification is delivered when the transaction that sent it commits, so the reload it causes sees the
 * change. The reconcile interval stays the backstop for a lost notification (the listener reconnects by itself and
 * reloads once it is back).
 */
public final class JdbcDesiredStateSource implements DesiredStateSource {

    /** Maps one row (the cursor is on it) to an item; throw {@link InvalidWorkItemException} to skip the row. */
    @FunctionalInterface
    public interface RowMapper {
        WorkItem map(ResultSet row) throws SQLException;
    }

    /** Maps rows by column name; see the class comment. The columns are looked up once per load. */
    public static final RowMapper COLUMNS = row -> new ColumnMapper().map(row);

    private static final Logger log = LoggerFactory.getLogger(JdbcDesiredStateSource.class);

    private final DataSource dataSource;
    private final String sql;
    private final RowMapper mapper;
    private final Duration queryTimeout;
    private final String notifyChannel;

    private JdbcDesiredStateSource(Builder b) {
        this.dataSource = b.dataSource;
        this.sql = b.sql;
        this.mapper = b.mapper;
        this.queryTimeout = b.queryTimeout;
        this.notifyChannel = b.notifyChannel;
    }

    /** A source running {@code sql} on {@code dataSource}. */
    public static Builder builder(DataSource dataSource, String sql) {
        return new Builder(dataSource, sql);
    }

    @Override
    public List<WorkItem> load() throws SQLException {
        List<WorkItem> items = new ArrayList<>();
        int skipped = 0;
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setQueryTimeout((int) Math.max(1, queryTimeout.toSeconds()));
            statement.setFetchSize(1000);
            RowMapper rowMapper = mapper == COLUMNS ? new ColumnMapper() : mapper;
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    try {
                        items.add(rowMapper.map(rows));
                    } catch (InvalidWorkItemException e) {
                        skipped++;
                        if (skipped <= 10) {
                            log.warn("desired state query: row {} is not a valid item, skipped: {}", rows.getRow(),
                                    e.getMessage());
                        }
                    }
                }
            }
        }
        if (skipped > 10) {
            log.warn("desired state query: {} rows in all were not valid items and were skipped", skipped);
        }
        return items;
    }

    /**
     * Listens on the {@linkplain Builder#notifyChannel notification channel}, if one was set, on a connection of its
     * own from the DataSource; without a channel, the default (no signals).
     */
    @Override
    public Registration watch(Runnable changed) {
        if (notifyChannel == null) {
            return DesiredStateSource.super.watch(changed);
        }
        return PostgresChangeListener.start(dataSource, notifyChannel, changed);
    }

    /** {@link #COLUMNS}, with the column indexes read from the first row's metadata. */
    private static final class ColumnMapper implements RowMapper {
        private Map<String, Integer> columns;

        @Override
        public WorkItem map(ResultSet row) throws SQLException {
            if (columns == null) {
                columns = columns(row.getMetaData());
            }
            return byColumns(row, columns);
        }
    }

    private static WorkItem byColumns(ResultSet row, Map<String, Integer> columns) throws SQLException {
        String id = text(row, columns, "subscriptionidentifier", true);
        try {
            return new WorkItem(id, text(row, columns, "rtspurl", true), longValue(row, columns, "modelid", true),
                    text(row, columns, "modelname", true), text(row, columns, "modelurl", false),
                    text(row, columns, "snapshoturl", false), longValue(row, columns, "snapshotinterval", false),
                    intValue(row, columns, "cropx1"), intValue(row, columns, "cropy1"),
                    intValue(row, columns, "cropx2"), intValue(row, columns, "cropy2"),
                    intValue(row, columns, "weight"), timestamp(row, columns));
        } catch (InvalidWorkItemException e) {
            throw new InvalidWorkItemException(e.field().orElse(null), "item '" + id + "': " + e.getMessage());
        }
    }

    private static Map<String, Integer> columns(ResultSetMetaData meta) throws SQLException {
        Map<String, Integer> columns = new HashMap<>();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
            columns.putIfAbsent(meta.getColumnLabel(i).replace("_", "").toLowerCase(Locale.ROOT), i);
        }
        return columns;
    }

    private static Integer column(Map<String, Integer> columns, String name, boolean required) throws SQLException {
        Integer index = columns.get(name);
        if (index == null && required) {
            throw new SQLException("the desired state query has no column '" + name
                    + "' (named like subscription_identifier, rtsp_url, model_id, model_name; case and underscores"
                    + " do not matter)");
        }
        return index;
    }

    private static String text(ResultSet row, Map<String, Integer> columns, String name, boolean required)
            throws SQLException {
        Integer index = column(columns, name, required);
        return index == null ? null : row.getString(index);
    }

    private static Long longValue(ResultSet row, Map<String, Integer> columns, String name, boolean required)
            throws SQLException {
        Integer index = column(columns, name, required);
        if (index == null) {
            return null;
        }
        long value = row.getLong(index);
        return row.wasNull() ? null : value;
    }

    private static Integer intValue(ResultSet row, Map<String, Integer> columns, String name) throws SQLException {
        Integer index = columns.get(name);
        if (index == null) {
            return null;
        }
        int value = row.getInt(index);
        return row.wasNull() ? null : value;
    }

    private static String timestamp(ResultSet row, Map<String, Integer> columns) throws SQLException {
        Integer index = columns.get("createdat");
        if (index == null) {
            return null;
        }
        Object value = row.getObject(index);
        if (value == null) {
            return null;
        }
        if (value instanceof Timestamp t) {
            return t.toInstant().toString();
        }
        if (value instanceof OffsetDateTime t) {
            return t.toInstant().toString();
        }
        return value.toString();
    }

    /** Builds a {@link JdbcDesiredStateSource}. */
    public static final class Builder {
        private final DataSource dataSource;
        private final String sql;
        private RowMapper mapper = COLUMNS;
        private Duration queryTimeout = Duration.ofSeconds(10);
        private String notifyChannel;

        private Builder(DataSource dataSource, String sql) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            this.sql = Objects.requireNonNull(sql, "sql");
            if (sql.isBlank()) {
                throw new IllegalArgumentException("the desired state query must not be blank");
            }
        }

        /** How a row becomes an item; default {@link #COLUMNS}. */
        public Builder mapper(RowMapper value) {
            this.mapper = Objects.requireNonNull(value, "mapper");
            return this;
        }

        /** The longest the query may run; default 10 s (whole seconds, at least 1). */
        public Builder queryTimeout(Duration value) {
            Objects.requireNonNull(value, "queryTimeout");
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException("queryTimeout must be positive, was " + value);
            }
            this.queryTimeout = value;
            return this;
        }

        /**
         * A PostgreSQL notification channel whose notifications mean "the desired state changed" (see the class
         * comment for the trigger that sends them); default none. Needs PostgreSQL's JDBC driver on the classpath
         * and a DataSource whose connections are PostgreSQL's (a pool's are, unwrapped).
         *
         * @throws IllegalArgumentException if PostgreSQL would not take the name unquoted (lower-case letters,
         *                                  digits and underscores, at most 63 characters)
         */
        public Builder notifyChannel(String channel) {
            this.notifyChannel = PostgresChangeListener.checkChannel(channel);
            return this;
        }

        public JdbcDesiredStateSource build() {
            return new JdbcDesiredStateSource(this);
        }
    }
}

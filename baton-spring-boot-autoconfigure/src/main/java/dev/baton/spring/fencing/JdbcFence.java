package dev.baton.spring.fencing;

import dev.baton.core.Leadership;
import dev.baton.core.fencing.LeadershipNotValidException;
import dev.baton.core.fencing.StaleTermException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * A fence kept in your own SQL database, for any backend: your statements run in one transaction with a row that
 * remembers the highest term this fence has admitted, so once a newer leader has written, a deposed leader's late
 * write is refused ({@link StaleTermException}) and nothing of it commits. Given the {@link Leadership} itself, the
 * fence also refuses one that is no longer valid ({@link LeadershipNotValidException}), before it touches the
 * database and again right before the commit: that is what stops a deposed leader whose successor has not written
 * yet.
 *
 * <pre>{@code
 * jdbcFence.execute("invoices", CurrentLeadership.require(), connection -> {
 *     try (PreparedStatement insert = connection.prepareStatement("INSERT INTO invoices ...")) {
 *         return insert.executeUpdate();
 *     }
 * });
 * }</pre>
 *
 * <p>How: {@code UPDATE <table> SET term = ? WHERE fence_name = ? AND term <= ?} in the transaction of the work. The
 * row lock it takes is held until the commit, so fenced transactions of one name run one after the other in term
 * order of their commits: a writer whose term is below the row's (a newer leader has committed) changes no row and
 * is refused. Unlike {@code PostgresFencing}, which asks the lease itself and so also refuses a deposed leader
 * <em>before</em> its successor has written, this fence learns of a new term from the first write that carries it;
 * until then only the leadership's own validity check keeps a deposed leader out, so a leader paused right after its
 * last check can still commit unless its successor has committed through the same name first. It works with the
 * lease in Redis, PostgreSQL or on the serverless backends, and with any database that has row locks (PostgreSQL,
 * MySQL, H2, ...).
 *
 * <p>The table ({@code fence_name VARCHAR(200) PRIMARY KEY, term BIGINT}) is created on first use if missing. Each
 * call borrows its own connection from the data source and commits or rolls back itself; it does not join a Spring
 * transaction. Thread-safe.
 */
public final class JdbcFence {

    /** Your statements, run on the fenced transaction's connection. */
    @FunctionalInterface
    public interface FencedWork<T> {
        T run(Connection connection) throws SQLException;
    }

    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");
    /** A first write of a name may race another's insert; the loser starts over and then finds the row. */
    private static final int ATTEMPTS = 3;

    private final DataSource dataSource;
    private final String table;
    private volatile boolean tableReady;

    /** A fence in the table {@code baton_fence}. */
    public JdbcFence(DataSource dataSource) {
        this(dataSource, "baton_fence");
    }

    /** A fence in {@code table} (a plain or schema-qualified SQL name). */
    public JdbcFence(DataSource dataSource, String table) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        if (table == null || !TABLE_NAME.matcher(table).matches()) {
            throw new IllegalArgumentException("fence table must be a plain SQL name such as baton_fence or "
                    + "app.baton_fence, was '" + table + "'");
        }
        this.table = table;
    }

    /** The table the terms are kept in. */
    public String table() {
        return table;
    }

    /**
     * Runs {@code work} in one transaction that first admits {@code leadership}'s term into the fence {@code name},
     * if the leadership is still {@linkplain Leadership#isValid() valid}: it is checked before anything is done and
     * again right before the commit.
     *
     * @throws LeadershipNotValidException if the leadership is no longer valid; nothing was written
     * @throws StaleTermException          if a newer term has written through this fence; nothing was written
     * @throws SQLException                if the database or the work failed; the transaction was rolled back
     */
    public <T> T execute(String name, Leadership leadership, FencedWork<T> work) throws SQLException {
        Objects.requireNonNull(leadership, "leadership");
        Objects.requireNonNull(work, "work");
        requireName(name);
        requireValid(leadership);
        return run(name, leadership.term(), () -> requireValid(leadership), work);
    }

    /**
     * Runs {@code work} in one transaction that first admits {@code term} into the fence {@code name}. Only the term
     * is checked: for callers that carry the term from elsewhere. A leader holding its {@link Leadership} should use
     * {@link #execute(String, Leadership, FencedWork)}, which also refuses a leadership that is no longer valid.
     *
     * @throws StaleTermException if a newer term has written through this fence; nothing was written
     * @throws SQLException       if the database or the work failed; the transaction was rolled back
     */
    public <T> T execute(String name, long term, FencedWork<T> work) throws SQLException {
        return run(name, term, () -> { }, work);
    }

    /** The fenced transaction; {@code beforeCommit} may refuse it by throwing, which rolls everything back. */
    private <T> T run(String name, long term, Runnable beforeCommit, FencedWork<T> work) throws SQLException {
        Objects.requireNonNull(work, "work");
        requireName(name);
        ensureTable();
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try (Connection connection = dataSource.getConnection()) {
                boolean autoCommit = connection.getAutoCommit();
                connection.setAutoCommit(false);
                try {
                    if (!admit(connection, name, term)) {
                        connection.rollback();
                        continue;
                    }
                    T result = work.run(connection);
                    beforeCommit.run();
                    connection.commit();
                    return result;
                } catch (SQLException | RuntimeException | Error e) {
                    connection.rollback();
                    throw e;
                } finally {
                    connection.setAutoCommit(autoCommit);
                }
            }
        }
        throw new SQLException("fence '" + name + "' in " + table + ": the first row could not be inserted in "
                + ATTEMPTS + " attempts");
    }

    /** The highest term fence {@code name} has admitted, if any. */
    public OptionalLong highestTerm(String name) throws SQLException {
        requireName(name);
        ensureTable();
        try (Connection connection = dataSource.getConnection()) {
            return read(connection, name);
        }
    }

    /** Admits {@code term}, or refuses it; false if another transaction inserted the fence's first row meanwhile. */
    private boolean admit(Connection connection, String name, long term) throws SQLException {
        try (PreparedStatement raise = connection.prepareStatement(
                "UPDATE " + table + " SET term = ? WHERE fence_name = ? AND term <= ?")) {
            raise.setLong(1, term);
            raise.setString(2, name);
            raise.setLong(3, term);
            if (raise.executeUpdate() == 1) {
                return true;
            }
        }
        OptionalLong current = read(connection, name);
        if (current.isPresent()) {
            throw new StaleTermException(term, current.getAsLong());
        }
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO " + table + " (fence_name, term) VALUES (?, ?)")) {
            insert.setString(1, name);
            insert.setLong(2, term);
            insert.executeUpdate();
            return true;
        } catch (SQLException e) {
            if (isUniqueViolation(e)) {
                return false;
            }
            throw e;
        }
    }

    private OptionalLong read(Connection connection, String name) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT term FROM " + table + " WHERE fence_name = ?")) {
            select.setString(1, name);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? OptionalLong.of(row.getLong(1)) : OptionalLong.empty();
            }
        }
    }

    private void ensureTable() throws SQLException {
        if (tableReady) {
            return;
        }
        try (Connection connection = dataSource.getConnection(); Statement create = connection.createStatement()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(true);
            try {
                create.execute("CREATE TABLE IF NOT EXISTS " + table
                        + " (fence_name VARCHAR(200) PRIMARY KEY, term BIGINT NOT NULL)");
            } finally {
                connection.setAutoCommit(autoCommit);
            }
        }
        tableReady = true;
    }

    /** SQLSTATE class 23 (integrity constraint violation): two first writes of one name inserted at once. */
    private static boolean isUniqueViolation(SQLException e) {
        String state = e.getSQLState();
        return state != null && state.startsWith("23");
    }

    private static void requireValid(Leadership leadership) {
        if (!leadership.isValid()) {
            throw new LeadershipNotValidException(leadership.term());
        }
    }

    private static void requireName(String name) {
        if (name == null || name.isBlank() || name.length() > 200) {
            throw new IllegalArgumentException("fence name must be 1 to 200 characters, was '" + name + "'");
        }
    }
}

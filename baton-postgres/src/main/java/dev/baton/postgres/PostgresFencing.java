package dev.baton.postgres;

import dev.baton.core.Leadership;
import dev.baton.core.fencing.LeadershipNotValidException;
import dev.baton.core.fencing.StaleTermException;
import dev.baton.postgres.internal.Tables;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The fencing guard for writes to your own PostgreSQL tables (DESIGN §3, rule 2): your statements run in one
 * transaction with a check that the caller's term is still the group's newest, so a leader that was paused past its
 * lease and replaced cannot write, whatever it believes.
 *
 * <p>The check is {@code SELECT term FROM <schema>.leader_lease WHERE group_name = ? FOR SHARE}. The share lock is
 * held until the transaction ends, and every acquire must lock that row to issue a new term, so no new leader can be
 * elected between the check and your commit: either your transaction commits first and the next term is issued
 * after it, or the next term was issued first and the check refuses you. This works when your tables live in the
 * same database as Baton's schema (they may be in another schema of it).
 *
 * <p>Given the {@link Leadership} itself, the guard first refuses one that is no longer
 * {@linkplain Leadership#isValid() valid} ({@link LeadershipNotValidException}), before it touches the connection.
 * A leader paused after that check is what the term check catches: if the next term was issued meanwhile it is
 * refused, and if not, the share lock holds the next term off until its commit.
 *
 * <pre>{@code
 * PostgresFencing fencing = store.fencing("orders-scheduler");   // or PostgresFencing.forGroup("baton", "orders-scheduler")
 *
 * election.addListener(event -> {
 *     if (event instanceof ElectionEvent.LeadershipAcquired acquired) {
 *         Leadership leadership = acquired.leadership();
 *         try (Connection connection = appDataSource.getConnection()) {
 *             int moved = fencing.execute(connection, leadership, c -> {
 *                 try (PreparedStatement ps = c.prepareStatement(
 *                         "UPDATE jobs SET owner = ?, term = ? WHERE owner IS NULL")) {
 *                     ps.setString(1, election.nodeId());
 *                     ps.setLong(2, leadership.term());
 *                     return ps.executeUpdate();
 *                 }
 *             });
 *         } catch (LeadershipNotValidException | StaleTermException refused) {
 *             // This leadership has ended, or a newer leader exists; nothing was written. Stop acting as leader.
 *         } catch (SQLException e) {
 *             // The database failed; the transaction was rolled back.
 *         }
 *     }
 * });
 * }</pre>
 *
 * <p><b>Transactions.</b> If the connection is in autocommit mode, {@link #execute(Connection, Leadership, FencedWork)}
 * opens a transaction, commits it when the work returns and rolls it back if anything throws; autocommit is restored
 * afterwards. If a transaction is already open (autocommit off), the check and the work join it and the caller
 * commits; a leadership that is no longer valid or a stale term then rolls the whole transaction back, since nothing
 * done in it may commit.
 *
 * <p><b>Keep fenced transactions short.</b> While one is open the lease row is share-locked: no acquire, and also no
 * renewal of the current lease, can complete until it ends. A transaction longer than the lease's renew interval
 * delays the leader's own renewal; one longer than the lease TTL can cost the leader its leadership.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class PostgresFencing {

    /** Your statements, run on the fenced transaction's connection. */
    @FunctionalInterface
    public interface FencedWork<T> {
        T run(Connection connection) throws SQLException;
    }

    private final String schema;
    private final String group;
    private final String check;

    private PostgresFencing(String schema, String group) {
        if (group == null || group.isBlank()) {
            throw new IllegalArgumentException("group must not be blank");
        }
        if (schema == null || schema.isBlank()) {
            throw new IllegalArgumentException("schema must not be blank");
        }
        this.schema = schema;
        this.group = group;
        this.check = "SELECT term FROM " + new Tables(schema).leaderLease() + " WHERE group_name = ? FOR SHARE";
    }

    /** The guard for {@code group} in the default schema, {@value PostgresStoreOptions#DEFAULT_SCHEMA}. */
    public static PostgresFencing forGroup(String group) {
        return new PostgresFencing(PostgresStoreOptions.DEFAULT_SCHEMA, group);
    }

    /** The guard for {@code group} whose lease lives in {@code schema}. */
    public static PostgresFencing forGroup(String schema, String group) {
        return new PostgresFencing(schema, group);
    }

    public String schema() {
        return schema;
    }

    public String group() {
        return group;
    }

    /**
     * Runs {@code work} in one transaction with the term check of {@code leadership}, on a connection borrowed from
     * {@code dataSource} and closed afterwards, if the leadership is still {@linkplain Leadership#isValid() valid}.
     *
     * @throws LeadershipNotValidException if the leadership is no longer valid; no connection was borrowed
     * @throws StaleTermException          if its term is not the group's newest term; nothing was written
     * @throws SQLException                if the database failed; the transaction was rolled back
     * @throws IllegalArgumentException    if the leadership is of another group than this guard's
     */
    public <T> T execute(DataSource dataSource, Leadership leadership, FencedWork<T> work) throws SQLException {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(work, "work");
        requireValid(leadership);
        try (Connection connection = dataSource.getConnection()) {
            return execute(connection, leadership, work);
        }
    }

    /**
     * Runs {@code work} in one transaction with the term check, on a connection borrowed from {@code dataSource}
     * and closed afterwards. Only the term is checked: for callers that carry the term from elsewhere. A leader
     * holding its {@link Leadership} should use {@link #execute(DataSource, Leadership, FencedWork)}, which also
     * refuses a leadership that is no longer valid.
     *
     * @throws StaleTermException if {@code term} is not the group's newest term; nothing was written
     * @throws SQLException       if the database failed; the transaction was rolled back
     */
    public <T> T execute(DataSource dataSource, long term, FencedWork<T> work) throws SQLException {
        Objects.requireNonNull(dataSource, "dataSource");
        try (Connection connection = dataSource.getConnection()) {
            return execute(connection, term, work);
        }
    }

    /**
     * Runs {@code work} in the same transaction as the term check of {@code leadership} (see the class comment for
     * who commits), if the leadership is still {@linkplain Leadership#isValid() valid}. No check is repeated before
     * the commit: from the term check on, the share lock holds off the next term until this transaction ends.
     *
     * @throws LeadershipNotValidException if the leadership is no longer valid; nothing was run, and a transaction
     *                                     the caller had open was rolled back
     * @throws StaleTermException          if its term is not the group's newest term; the transaction was rolled
     *                                     back
     * @throws SQLException                if the database or the work failed
     * @throws IllegalArgumentException    if the leadership is of another group than this guard's
     */
    public <T> T execute(Connection connection, Leadership leadership, FencedWork<T> work) throws SQLException {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(work, "work");
        try {
            requireValid(leadership);
        } catch (LeadershipNotValidException e) {
            if (!connection.getAutoCommit()) {
                rollback(connection, e);
            }
            throw e;
        }
        return execute(connection, leadership.term(), work);
    }

    /**
     * Runs {@code work} in the same transaction as the term check (see the class comment for who commits). Only the
     * term is checked: for callers that carry the term from elsewhere. A leader holding its {@link Leadership} should
     * use {@link #execute(Connection, Leadership, FencedWork)}, which also refuses a leadership that is no longer
     * valid.
     *
     * @throws StaleTermException if {@code term} is not the group's newest term; the transaction was rolled back
     * @throws SQLException       if the database or the work failed
     */
    public <T> T execute(Connection connection, long term, FencedWork<T> work) throws SQLException {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(work, "work");
        boolean ownTransaction = connection.getAutoCommit();
        if (ownTransaction) {
            connection.setAutoCommit(false);
        }
        try {
            check(connection, term);
            T result = work.run(connection);
            if (ownTransaction) {
                connection.commit();
            }
            return result;
        } catch (StaleTermException e) {
            rollback(connection, e);
            throw e;
        } catch (SQLException | RuntimeException | Error e) {
            if (ownTransaction) {
                rollback(connection, e);
            }
            throw e;
        } finally {
            if (ownTransaction) {
                connection.setAutoCommit(true);
            }
        }
    }

    /**
     * The guard alone, for callers that manage their own transaction: refuses {@code leadership} if it is no longer
     * {@linkplain Leadership#isValid() valid}, then checks its term and share-locks the group's lease row until the
     * caller's transaction ends. Call it before the transaction's writes.
     *
     * @throws IllegalStateException       if the connection is in autocommit mode (the lock would end at once)
     * @throws LeadershipNotValidException if the leadership is no longer valid (the transaction is left open: roll
     *                                     it back)
     * @throws StaleTermException          if its term is not the group's newest term (the transaction is left open:
     *                                     roll it back)
     * @throws IllegalArgumentException    if the leadership is of another group than this guard's
     */
    public void check(Connection connection, Leadership leadership) throws SQLException {
        requireTransaction(connection);
        requireValid(leadership);
        check(connection, leadership.term());
    }

    /**
     * The guard alone, for callers that manage their own transaction: checks {@code term} and share-locks the
     * group's lease row until the caller's transaction ends. Call it before the transaction's writes. Only the term
     * is checked: a leader holding its {@link Leadership} should use {@link #check(Connection, Leadership)}, which
     * also refuses a leadership that is no longer valid.
     *
     * @throws IllegalStateException if the connection is in autocommit mode (the lock would end at once)
     * @throws StaleTermException    if {@code term} is not the group's newest term (the transaction is left open:
     *                               roll it back)
     */
    public void check(Connection connection, long term) throws SQLException {
        requireTransaction(connection);
        long newest;
        try (PreparedStatement ps = connection.prepareStatement(check)) {
            ps.setString(1, group);
            try (ResultSet rs = ps.executeQuery()) {
                newest = rs.next() ? rs.getLong(1) : 0;
            }
        }
        if (newest == 0 || term != newest) {
            throw new StaleTermException(term, newest);
        }
    }

    private static void requireTransaction(Connection connection) throws SQLException {
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("the fencing check must run inside a transaction: call "
                    + "connection.setAutoCommit(false) first, or use execute(...)");
        }
    }

    /** Refuses a leadership of another group (a mistake) and one that is no longer valid. */
    private void requireValid(Leadership leadership) {
        Objects.requireNonNull(leadership, "leadership");
        if (!group.equals(leadership.group())) {
            throw new IllegalArgumentException("a leadership of group '" + leadership.group()
                    + "' cannot be fenced by the guard of group '" + group + "'");
        }
        if (!leadership.isValid()) {
            throw new LeadershipNotValidException(leadership.term());
        }
    }

    private static void rollback(Connection connection, Throwable failure) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }

    @Override
    public String toString() {
        return "PostgresFencing{schema=" + schema + ", group=" + group + "}";
    }
}

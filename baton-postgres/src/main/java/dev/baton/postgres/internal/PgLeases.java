package dev.baton.postgres.internal;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.Lease;
import dev.baton.core.store.LeaseNotice;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The lease operations on {@code leader_lease}, each one SQL statement, so each is atomic on its own, and each
 * decides expiry by the database's clock only, read once the row is locked ({@code clock_timestamp()}, not the
 * transaction's start, {@code now()}).
 *
 * <p>The group's row is never deleted: a release clears {@code leader_id} and ends {@code expires_at} but keeps
 * {@code term}. Every grant is {@code GREATEST(term + 1, the database clock in µs since the epoch)}, computed by the
 * database in the same statement that takes the lease (DESIGN §3, rule 5): {@code term + 1} keeps terms strictly
 * increasing while the row is intact, and the clock keeps them above every term issued before when the row is
 * <em>older</em> than the terms already issued (a database restored from a backup, a failover to a standby that
 * lagged). A term issued at clock time t is at most t in µs as long as the group averages under one grant per µs,
 * so the next grant is above it unless the database's clock stepped back by more than the time since. Concurrent
 * acquires queue on the row lock; PostgreSQL re-evaluates the condition on the newest row version, so exactly one of
 * them wins.
 */
public final class PgLeases {

    /**
     * A database timestamp in µs since the epoch, for a term. The clock is {@code clock_timestamp()}, read when the
     * row is written (once it is locked), not {@code now()}: {@code now()} is frozen at the start of the transaction,
     * so an acquire that queued on the row lock behind another one (or ran in a long transaction) would use a time
     * from before it could issue anything.
     */
    private static String micros(String timestamp) {
        return "CAST(floor(extract(epoch FROM " + timestamp + ") * 1000000) AS bigint)";
    }

    /** The group of {@link #warm}'s statements: empty, so never an election's. */
    static final String WARM_UP_GROUP = "";
    private static final NodeInfo WARM_UP_NODE = NodeInfo.of("baton-warm-up", "baton-warm-up");

    private final SqlRunner sql;
    private final Tables tables;
    private final PgListener listener;
    private final String acquire;
    private final String renew;
    private final String release;
    private final String read;

    /** @param listener the store's LISTEN connection, which runs an acquire asked for while it delivers a notice */
    public PgLeases(SqlRunner sql, Tables tables, PgListener listener) {
        this.sql = sql;
        this.tables = tables;
        this.listener = listener;
        // "free": no holder, an expired lease, or the candidate's own (it may take it again, under a new term).
        // Judged on one clock reading, taken once the row is locked (the subquery s): now() is the time the
        // transaction began, and an acquire that queued on the lock while the clock stepped back would compare a
        // grant written on the stepped clock with a time from before the step, and see a live lease as expired. The
        // no-op branch of the update (the lease is not free) still returns the row, so one statement answers both
        // Granted and Denied with the current holder, as of the row lock, not of an older snapshot.
        String free = "(l.leader_id IS NULL OR l.expires_at IS NULL OR l.expires_at <= c.t "
                + "OR l.leader_id = excluded.leader_id)";
        this.acquire = "WITH p AS (SELECT CAST(? AS text) AS grp, CAST(? AS text) AS id, CAST(? AS bigint) AS ttl_ms, "
                + "CAST(? AS text) AS channel_name, CAST(? AS text) AS channel, CAST(? AS text) AS notice_prefix, "
                + NodeColumns.PARAMS + "), "
                + "up AS (INSERT INTO " + tables.leaderLease() + " AS l (group_name, leader_id, term, acquired_at, "
                + "expires_at, renewed_at, hostname, api_url, leader_info) "
                + "SELECT p.grp, p.id, " + micros("clock_timestamp()") + ", now(), "
                + "now() + p.ttl_ms * interval '1 millisecond', "
                + "now(), p.hostname, p.api, " + NodeColumns.LEADER_INFO_JSON + " FROM p "
                + "ON CONFLICT (group_name) DO UPDATE SET (leader_id, term, acquired_at, expires_at, renewed_at, "
                + "hostname, api_url, leader_info) = (SELECT "
                + "CASE WHEN s.free THEN excluded.leader_id ELSE l.leader_id END, "
                + "CASE WHEN s.free THEN GREATEST(l.term + 1, " + micros("s.t") + ") ELSE l.term END, "
                + "CASE WHEN s.free THEN s.t ELSE l.acquired_at END, "
                // The TTL asked for, as the inserted row carries it.
                + "CASE WHEN s.free THEN s.t + (excluded.expires_at - excluded.acquired_at) ELSE l.expires_at END, "
                + "CASE WHEN s.free THEN s.t ELSE l.renewed_at END, "
                + "CASE WHEN s.free THEN excluded.hostname ELSE l.hostname END, "
                + "CASE WHEN s.free THEN excluded.api_url ELSE l.api_url END, "
                + "CASE WHEN s.free THEN excluded.leader_info ELSE l.leader_info END "
                + "FROM (SELECT c.t, " + free + " AS free FROM (SELECT clock_timestamp() AS t) c) s) "
                + "RETURNING l.leader_id, l.term, l.expires_at) "
                + "SELECT up.leader_id = p.id AS granted, up.leader_id, up.term, "
                + "CAST(extract(epoch FROM up.expires_at - clock_timestamp()) * 1000000 AS bigint) AS remaining_us, "
                + "CASE WHEN up.leader_id = p.id "
                + "THEN pg_notify(p.channel, p.notice_prefix || up.term || ' ' || p.id) END AS notified "
                + "FROM up, p";
        // Renew and release, too, judge and set expiry on the clock as read at the row, not at the transaction's start.
        this.renew = "UPDATE " + tables.leaderLease() + " SET expires_at = clock_timestamp() + CAST(? AS bigint) "
                + "* interval '1 millisecond', renewed_at = clock_timestamp() "
                + "WHERE group_name = ? AND leader_id = ? AND term = ? AND expires_at > clock_timestamp()";
        this.release = "WITH r AS (UPDATE " + tables.leaderLease() + " SET leader_id = NULL, "
                + "expires_at = clock_timestamp(), leader_info = NULL "
                + "WHERE group_name = ? AND leader_id = ? AND term = ? AND expires_at > clock_timestamp() "
                + "RETURNING term) SELECT pg_notify(?, ?) FROM r";
        this.read = "SELECT leader_id, term, "
                + "CAST(extract(epoch FROM expires_at - now()) * 1000000 AS bigint) AS remaining_us "
                + "FROM " + tables.leaderLease() + " WHERE group_name = ? AND leader_id IS NOT NULL "
                + "AND expires_at > now()";
    }

    /**
     * See {@link dev.baton.core.store.LeaseStore#acquire}. Asked for by a notice handler (a waiting follower that has
     * just read a release notice), it runs at once on the LISTEN connection, on the thread that read the notice: that
     * backend has just woken to send the notice, where a pooled one has gone idle, and the hop to a worker thread is
     * saved too. Anywhere else it runs on a worker thread and a pooled connection.
     */
    public CompletableFuture<AcquireResult> acquire(String group, NodeInfo candidate, Duration ttl) {
        Connection listening = listener.deliveringConnection();
        if (listening != null) {
            return sql.runOn(listening, "acquire", c -> acquire(c, group, candidate, ttl));
        }
        return sql.submit("acquire", c -> acquire(c, group, candidate, ttl));
    }

    /** See {@link dev.baton.core.store.LeaseStore#renew}. */
    public CompletableFuture<Boolean> renew(String group, String nodeId, long term, Duration ttl) {
        return sql.submit("renew", c -> renew(c, group, nodeId, term, ttl));
    }

    /** See {@link dev.baton.core.store.LeaseStore#release}; the notice goes out when the update commits. */
    public CompletableFuture<Boolean> release(String group, String nodeId, long term) {
        return sql.submit("release", c -> release(c, group, nodeId, term));
    }

    /** See {@link dev.baton.core.store.LeaseStore#read}. */
    public CompletableFuture<Optional<Lease>> read(String group) {
        return sql.submit("read lease", c -> read(c, group));
    }

    /**
     * Runs every lease statement once on a new connection, in a transaction that is rolled back, so that the
     * connection's first real acquire or release finds them prepared on the server and the tables' metadata loaded
     * in its backend, instead of paying for both in the middle of a handover. The group is {@value #WARM_UP_GROUP}
     * (empty), which no election can use (a group must not be blank), and the rollback leaves no row and sends no
     * notification.
     */
    public void warm(Connection c) throws SQLException {
        c.setAutoCommit(false);
        try {
            read(c, WARM_UP_GROUP);
            renew(c, WARM_UP_GROUP, WARM_UP_NODE.id(), 0, Duration.ofMillis(1));
            acquire(c, WARM_UP_GROUP, WARM_UP_NODE, Duration.ofMillis(1));
            release(c, WARM_UP_GROUP, WARM_UP_NODE.id(), 0);
        } finally {
            try {
                c.rollback();
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    private AcquireResult acquire(Connection c, String group, NodeInfo candidate, Duration ttl)
            throws SQLException {
        String prefix = NoticePayload.prefix(NoticePayload.Kind.LEASE, group)
                + LeaseNotice.Kind.ACQUIRED.name().toLowerCase(java.util.Locale.ROOT) + " ";
        try (PreparedStatement ps = c.prepareStatement(acquire)) {
            NodeColumns.bind(Params.of(ps).text(group).text(candidate.id()).bigint(millis(ttl))
                    .text(candidate.channelName()).text(tables.channel()).text(prefix), candidate);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("acquire returned no row");
                }
                long term = rs.getLong("term");
                if (rs.getBoolean("granted")) {
                    return new AcquireResult.Granted(term);
                }
                return new AcquireResult.Denied(new Lease(rs.getString("leader_id"), term,
                        remaining(rs.getLong("remaining_us"))));
            }
        }
    }

    private boolean renew(Connection c, String group, String nodeId, long term, Duration ttl) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(renew)) {
            Params.of(ps).bigint(millis(ttl)).text(group).text(nodeId).bigint(term);
            return ps.executeUpdate() == 1;
        }
    }

    private boolean release(Connection c, String group, String nodeId, long term) throws SQLException {
        String notice = NoticePayload.prefix(NoticePayload.Kind.LEASE, group)
                + new LeaseNotice(LeaseNotice.Kind.RELEASED, nodeId, term).encode();
        try (PreparedStatement ps = c.prepareStatement(release)) {
            Params.of(ps).text(group).text(nodeId).bigint(term).text(tables.channel()).text(notice);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private Optional<Lease> read(Connection c, String group) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(read)) {
            Params.of(ps).text(group);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new Lease(rs.getString("leader_id"), rs.getLong("term"),
                        remaining(rs.getLong("remaining_us"))));
            }
        }
    }

    static long millis(Duration ttl) {
        return Math.max(1, ttl.toMillis());
    }

    private static Duration remaining(long micros) {
        return Duration.ofNanos(Math.max(0, micros) * 1000);
    }
}

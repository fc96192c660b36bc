package dev.baton.postgres.internal;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.Lease;
import dev.baton.core.store.LeaseNotice;
import dev.baton.core.store.SessionEndedException;
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
 *
 * <p>A lease may instead be bound to a session ({@link PgSessions}): {@code holder_session} names it and
 * {@code expires_at} is NULL, and it is live while the session's row exists and has not expired ({@link LiveLease}).
 * The same statements serve both kinds: an acquire with a session binds the lease to it, one without gives it a TTL;
 * each takes a lease of either kind that is free, under the same term rule. Renew refuses a bound lease (it lives by
 * its session's keep-alives), and release takes either the holder's node id or the session's id.
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
        // "free": no holder, the candidate's own lease (it may take it again, under a new term), a lease with a TTL
        // of its own that has expired, or a lease bound to a session that has ended. Judged on one clock reading,
        // taken once the row is locked (the subquery s): now() is the time the transaction began, and an acquire that
        // queued on the lock while the clock stepped back would compare a grant written on the stepped clock with a
        // time from before the step, and see a live lease as expired. The no-op branch of the update (the lease is not
        // free) still returns the row, so one statement answers both Granted and Denied with the current holder, as
        // of the row lock, not of an older snapshot.
        //
        // A bound lease's session is judged ended only if this statement made sure it stays ended, since the
        // sessions table is read from the statement's snapshot, which a keep-alive committed since may have
        // outdated (and one in flight is invisible to it):
        // - "ended" deletes the session the lease was bound to in the snapshot ("seen") if it has expired. A DELETE
        //   waits for a keep-alive in flight and re-checks the newest row, on a clock read again, so it deletes only
        //   a session that has ended, and once its row is gone no keep-alive can extend it (an unknown id is ended);
        // - a session with no row in the snapshot was closed or swept before it, for good (a lease is bound to a
        //   session only after the session's row was committed, so a snapshot that sees the binding sees the row).
        // Both hold only for the session of the snapshot's binding: if the locked row is bound to another session
        // (a grant committed after the snapshot, perhaps to a session the snapshot cannot see), it is not free.
        String free = "(l.leader_id IS NULL OR l.leader_id = excluded.leader_id "
                + "OR (l.holder_session IS NULL AND (l.expires_at IS NULL OR l.expires_at <= c.t)) "
                + "OR (l.holder_session = (SELECT seen.holder_session FROM seen) "
                + "AND (l.holder_session IN (SELECT ended.id FROM ended) OR NOT EXISTS (SELECT 1 FROM "
                + tables.sessions() + " x WHERE x.id = l.holder_session))))";
        // One statement for both kinds of acquire: p.session is NULL for a lease with a TTL of its own (ttl_ms), or
        // the session a bound lease is granted to, which must be alive ("cand"; if it is not, nothing is written and
        // no row returns). A bound lease has no expires_at of its own (NULL, from the inserted row's).
        this.acquire = "WITH p AS (SELECT CAST(? AS text) AS grp, CAST(? AS text) AS id, CAST(? AS bigint) AS ttl_ms, "
                + "CAST(? AS text) AS session, CAST(? AS text) AS channel_name, CAST(? AS text) AS channel, "
                + "CAST(? AS text) AS notice_prefix, " + NodeColumns.PARAMS + "), "
                + "seen AS (SELECT l.holder_session FROM " + tables.leaderLease() + " l, p WHERE l.group_name = p.grp), "
                + "ended AS (DELETE FROM " + tables.sessions() + " x USING seen WHERE x.id = seen.holder_session "
                + "AND x.expires_at <= clock_timestamp() RETURNING x.id), "
                + "cand AS (SELECT 1 FROM p WHERE p.session IS NULL OR EXISTS (SELECT 1 FROM " + tables.sessions()
                + " x WHERE x.id = p.session AND x.expires_at > clock_timestamp())), "
                + "up AS (INSERT INTO " + tables.leaderLease() + " AS l (group_name, leader_id, term, acquired_at, "
                + "expires_at, renewed_at, hostname, api_url, leader_info, holder_session) "
                + "SELECT p.grp, p.id, " + micros("clock_timestamp()") + ", now(), "
                + "CASE WHEN p.session IS NULL THEN now() + p.ttl_ms * interval '1 millisecond' END, "
                + "now(), p.hostname, p.api, " + NodeColumns.LEADER_INFO_JSON + ", p.session FROM p, cand "
                + "ON CONFLICT (group_name) DO UPDATE SET (leader_id, term, acquired_at, expires_at, renewed_at, "
                + "hostname, api_url, leader_info, holder_session) = (SELECT "
                + "CASE WHEN s.free THEN excluded.leader_id ELSE l.leader_id END, "
                + "CASE WHEN s.free THEN GREATEST(l.term + 1, " + micros("s.t") + ") ELSE l.term END, "
                + "CASE WHEN s.free THEN s.t ELSE l.acquired_at END, "
                // The TTL asked for, as the inserted row carries it (NULL for a bound lease).
                + "CASE WHEN s.free THEN s.t + (excluded.expires_at - excluded.acquired_at) ELSE l.expires_at END, "
                + "CASE WHEN s.free THEN s.t ELSE l.renewed_at END, "
                + "CASE WHEN s.free THEN excluded.hostname ELSE l.hostname END, "
                + "CASE WHEN s.free THEN excluded.api_url ELSE l.api_url END, "
                + "CASE WHEN s.free THEN excluded.leader_info ELSE l.leader_info END, "
                + "CASE WHEN s.free THEN excluded.holder_session ELSE l.holder_session END "
                + "FROM (SELECT c.t, " + free + " AS free FROM (SELECT clock_timestamp() AS t) c) s) "
                + "RETURNING l.leader_id, l.term, l.holder_session, " + LiveLease.expiry(tables, "l") + " AS ends) "
                + "SELECT up.leader_id = p.id AS granted, up.leader_id, up.term, up.holder_session, "
                + "CAST(extract(epoch FROM up.ends - clock_timestamp()) * 1000000 AS bigint) AS remaining_us, "
                + "CASE WHEN up.leader_id = p.id "
                + "THEN pg_notify(p.channel, p.notice_prefix || up.term || ' ' || p.id) END AS notified "
                + "FROM up, p";
        // Renew and release, too, judge and set expiry on the clock as read at the row, not at the transaction's
        // start. A bound lease is never renewed: it lives as long as its session (SessionStore#keepAlive).
        this.renew = "UPDATE " + tables.leaderLease() + " SET expires_at = clock_timestamp() + CAST(? AS bigint) "
                + "* interval '1 millisecond', renewed_at = clock_timestamp() "
                + "WHERE group_name = ? AND leader_id = ? AND term = ? AND holder_session IS NULL "
                + "AND expires_at > clock_timestamp()";
        // One statement for both kinds of release: by the holder's node id (p.node, a lease of either kind) or by
        // the session it is bound to (p.session). "old" locks the row and keeps the holder's id for the notice, which
        // the update clears.
        this.release = "WITH p AS (SELECT CAST(? AS text) AS grp, CAST(? AS text) AS node, CAST(? AS text) AS session, "
                + "CAST(? AS bigint) AS term, CAST(? AS text) AS channel, CAST(? AS text) AS notice_prefix), "
                + "old AS (SELECT l.group_name, l.leader_id FROM " + tables.leaderLease() + " l, p "
                + "WHERE l.group_name = p.grp AND l.term = p.term AND (p.node IS NULL OR l.leader_id = p.node) "
                + "AND (p.session IS NULL OR l.holder_session = p.session) FOR UPDATE OF l), "
                + "r AS (UPDATE " + tables.leaderLease() + " l SET leader_id = NULL, holder_session = NULL, "
                + "expires_at = clock_timestamp(), leader_info = NULL FROM old, p "
                + "WHERE l.group_name = old.group_name AND l.term = p.term AND l.leader_id = old.leader_id "
                + "AND (p.session IS NULL OR l.holder_session = p.session) "
                + "AND " + LiveLease.live(tables, "l", "clock_timestamp()") + " RETURNING old.leader_id) "
                + "SELECT pg_notify(p.channel, p.notice_prefix || p.term || ' ' || r.leader_id) FROM r, p";
        this.read = "SELECT l.leader_id, l.term, l.holder_session, "
                + "CAST(extract(epoch FROM " + LiveLease.expiry(tables, "l") + " - now()) * 1000000 AS bigint) "
                + "AS remaining_us FROM " + tables.leaderLease() + " l WHERE l.group_name = ? "
                + "AND " + LiveLease.live(tables, "l", "now()");
    }

    /**
     * See {@link dev.baton.core.store.LeaseStore#acquire}. Asked for by a notice handler (a waiting follower that has
     * just read a release notice), it runs at once on the LISTEN connection, on the thread that read the notice: that
     * backend has just woken to send the notice, where a pooled one has gone idle, and the hop to a worker thread is
     * saved too. Anywhere else it runs on a worker thread and a pooled connection.
     */
    public CompletableFuture<AcquireResult> acquire(String group, NodeInfo candidate, Duration ttl) {
        return acquire(group, null, candidate, ttl);
    }

    /**
     * See {@link dev.baton.core.store.SessionStore#acquire}: as {@link #acquire(String, NodeInfo, Duration)}, but the
     * lease is bound to {@code session}; fails with {@link SessionEndedException} if the session has ended.
     */
    public CompletableFuture<AcquireResult> acquire(String group, String session, NodeInfo candidate) {
        return acquire(group, session, candidate, Duration.ZERO);
    }

    private CompletableFuture<AcquireResult> acquire(String group, String session, NodeInfo candidate,
            Duration ttl) {
        Connection listening = listener.deliveringConnection();
        if (listening != null) {
            return sql.runOn(listening, "acquire", c -> acquire(c, group, session, candidate, ttl));
        }
        return sql.submit("acquire", c -> acquire(c, group, session, candidate, ttl));
    }

    /** See {@link dev.baton.core.store.LeaseStore#renew}. */
    public CompletableFuture<Boolean> renew(String group, String nodeId, long term, Duration ttl) {
        return sql.submit("renew", c -> renew(c, group, nodeId, term, ttl));
    }

    /** See {@link dev.baton.core.store.LeaseStore#release}; the notice goes out when the update commits. */
    public CompletableFuture<Boolean> release(String group, String nodeId, long term) {
        return sql.submit("release", c -> release(c, group, nodeId, null, term));
    }

    /** See {@link dev.baton.core.store.SessionStore#release}; the notice goes out when the update commits. */
    public CompletableFuture<Boolean> releaseBound(String group, String session, long term) {
        return sql.submit("release", c -> release(c, group, null, session, term));
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
            acquire(c, WARM_UP_GROUP, null, WARM_UP_NODE, Duration.ofMillis(1));
            release(c, WARM_UP_GROUP, WARM_UP_NODE.id(), null, 0);
        } finally {
            try {
                c.rollback();
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    private AcquireResult acquire(Connection c, String group, String session, NodeInfo candidate, Duration ttl)
            throws SQLException {
        String prefix = NoticePayload.prefix(NoticePayload.Kind.LEASE, group)
                + LeaseNotice.Kind.ACQUIRED.name().toLowerCase(java.util.Locale.ROOT) + " ";
        try (PreparedStatement ps = c.prepareStatement(acquire)) {
            NodeColumns.bind(Params.of(ps).text(group).text(candidate.id()).bigint(millis(ttl)).text(session)
                    .text(candidate.channelName()).text(tables.channel()).text(prefix), candidate);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    if (session != null) {
                        throw new SessionEndedException(session); // the statement wrote nothing
                    }
                    throw new SQLException("acquire returned no row");
                }
                long term = rs.getLong("term");
                if (rs.getBoolean("granted")) {
                    return new AcquireResult.Granted(term);
                }
                return new AcquireResult.Denied(lease(rs, term));
            }
        }
    }

    private boolean renew(Connection c, String group, String nodeId, long term, Duration ttl) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(renew)) {
            Params.of(ps).bigint(millis(ttl)).text(group).text(nodeId).bigint(term);
            return ps.executeUpdate() == 1;
        }
    }

    /** Releases by the holder's node id ({@code nodeId}) or by the session the lease is bound to. */
    private boolean release(Connection c, String group, String nodeId, String session, long term)
            throws SQLException {
        String prefix = NoticePayload.prefix(NoticePayload.Kind.LEASE, group)
                + LeaseNotice.Kind.RELEASED.name().toLowerCase(java.util.Locale.ROOT) + " ";
        try (PreparedStatement ps = c.prepareStatement(release)) {
            Params.of(ps).text(group).text(nodeId).text(session).bigint(term).text(tables.channel()).text(prefix);
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
                return Optional.of(lease(rs, rs.getLong("term")));
            }
        }
    }

    /**
     * The lease of a row with {@code leader_id}, {@code holder_session} and {@code remaining_us}: a bound lease's
     * remaining time is its session's, unknown (zero) if the statement's snapshot predates the session.
     */
    private static Lease lease(ResultSet rs, long term) throws SQLException {
        String session = rs.getString("holder_session");
        return new Lease(rs.getString("leader_id"), term, remaining(rs.getLong("remaining_us")),
                session == null ? "" : session);
    }

    static long millis(Duration ttl) {
        return Math.max(1, ttl.toMillis());
    }

    private static Duration remaining(long micros) {
        return Duration.ofNanos(Math.max(0, micros) * 1000);
    }
}

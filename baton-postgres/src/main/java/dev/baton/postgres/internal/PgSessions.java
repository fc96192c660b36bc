package dev.baton.postgres.internal;

import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.MemberNotice;
import dev.baton.core.store.SessionEndedException;
import dev.baton.core.store.SessionStore;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * Sessions ({@code sessions}, schema version 3) and the groups they joined ({@code session_members}); the leases bound
 * to them are {@link PgLeases}'s. A session is one row, alive while its {@code expires_at} is in the future by the
 * database's clock; keeping it alive is one {@code UPDATE} of that row, whatever the number of groups it holds.
 *
 * <p>An ended session's row is deleted (by {@link #close}, by the acquire that takes over a lease bound to it, or by
 * the sweep in {@link #open}), and an id with no row is an ended session. So "ended" never has to be written and can
 * never be undone: a keep-alive extends only a row that exists and has not expired, judged on the newest row version
 * and the clock read at it ({@code UPDATE} re-checks its condition after waiting for a concurrent change). Ids are
 * random UUIDs made here, never a database sequence, which a restored backup would hand out again.
 *
 * <p>Member notices are the registry's ({@code member <n>:<group> registered <node>}), sent in the transaction that
 * made the change, so {@code watchMembers} hears sessions join and leave as it hears registrations.
 */
public final class PgSessions implements SessionStore {

    /** How many ended sessions an open deletes at most: enough to keep up with restarts, bounded in cost. */
    private static final int SWEEP_LIMIT = 16;

    /** The parameters of {@link #membership}'s statements, in its order. */
    private static final String MEMBERSHIP_PARAMS = "WITH p AS (SELECT CAST(? AS text) AS grp, CAST(? AS text) AS session, "
            + "CAST(? AS text) AS channel, CAST(? AS text) AS notice_prefix), ";

    private final SqlRunner sql;
    private final Tables tables;
    private final PgLeases leases;
    private final String open;
    private final String keepAlive;
    private final String close;
    private final String notifyAll;
    private final String remaining;
    private final String join;
    private final String leave;
    private final String members;

    /** @param leases the lease statements, which take and release the leases bound to sessions */
    public PgSessions(SqlRunner sql, Tables tables, PgLeases leases) {
        this.sql = sql;
        this.tables = tables;
        this.leases = leases;
        // The new row, and a sweep of a few sessions that ended without a close: FOR UPDATE SKIP LOCKED re-checks
        // each one on its newest version (a keep-alive may have committed since the snapshot) and skips one that a
        // keep-alive is changing right now.
        this.open = "WITH p AS (SELECT CAST(? AS text) AS session, CAST(? AS text) AS id, CAST(? AS bigint) AS ttl_ms, "
                + "CAST(? AS text) AS channel_name, " + NodeColumns.PARAMS + "), "
                + "swept AS (DELETE FROM " + tables.sessions() + " WHERE id IN (SELECT id FROM " + tables.sessions()
                + " WHERE expires_at <= clock_timestamp() ORDER BY expires_at LIMIT " + SWEEP_LIMIT
                + " FOR UPDATE SKIP LOCKED)) "
                + "INSERT INTO " + tables.sessions() + " (id, node_id, node_info, opened_at, expires_at, last_seen) "
                + "SELECT p.session, p.id, " + NodeColumns.NODE_INFO_JSON + ", clock_timestamp(), "
                + "clock_timestamp() + p.ttl_ms * interval '1 millisecond', clock_timestamp() FROM p";
        // Never revives: the row must exist and be unexpired on the clock read at the newest row version.
        this.keepAlive = "UPDATE " + tables.sessions() + " SET expires_at = clock_timestamp() + CAST(? AS bigint) "
                + "* interval '1 millisecond', last_seen = clock_timestamp() "
                + "WHERE id = ? AND expires_at > clock_timestamp()";
        // Locks the session's newest row ("s"), then deletes it and its memberships (the foreign key would too, but
        // without naming the groups for the notices). "live" says whether it had not ended before this close.
        this.close = "WITH s AS (SELECT x.id, x.node_id, x.expires_at > clock_timestamp() AS live FROM "
                + tables.sessions() + " x WHERE x.id = ? FOR UPDATE), "
                + "m AS (DELETE FROM " + tables.sessionMembers() + " m USING s WHERE m.session_id = s.id "
                + "RETURNING m.group_name), "
                + "d AS (DELETE FROM " + tables.sessions() + " x USING s WHERE x.id = s.id) "
                + "SELECT s.live, s.node_id, ARRAY(SELECT m.group_name FROM m) AS groups FROM s";
        this.notifyAll = "SELECT count(pg_notify(?, n)) FROM unnest(CAST(? AS text[])) AS n";
        this.remaining = "SELECT id, CAST(extract(epoch FROM expires_at - clock_timestamp()) * 1000000 AS bigint) "
                + "AS remaining_us FROM " + tables.sessions() + " WHERE id = ANY (CAST(? AS text[])) "
                + "AND expires_at > clock_timestamp()";
        // No row: the session has ended. A row with "notified" NULL: it was a member already.
        this.join = MEMBERSHIP_PARAMS
                + "s AS (SELECT x.id, x.node_id FROM " + tables.sessions() + " x, p WHERE x.id = p.session "
                + "AND x.expires_at > clock_timestamp()), "
                + "j AS (INSERT INTO " + tables.sessionMembers() + " (group_name, session_id, joined_at) "
                + "SELECT p.grp, s.id, clock_timestamp() FROM p, s "
                + "ON CONFLICT (group_name, session_id) DO NOTHING RETURNING session_id) "
                + "SELECT s.node_id, (SELECT pg_notify(p.channel, p.notice_prefix || s.node_id) FROM j) AS notified "
                + "FROM s, p";
        // A row only if a live session left: an ended one's membership goes without a notice.
        this.leave = MEMBERSHIP_PARAMS
                + "d AS (DELETE FROM " + tables.sessionMembers() + " m USING p WHERE m.group_name = p.grp "
                + "AND m.session_id = p.session RETURNING m.session_id) "
                + "SELECT pg_notify(p.channel, p.notice_prefix || x.node_id) FROM d, p, " + tables.sessions() + " x "
                + "WHERE x.id = d.session_id AND x.expires_at > clock_timestamp()";
        // Every live session that joined, the leader derived from the group's live lease by node id, as the
        // registry does.
        this.members = "SELECT x.id AS session_id, " + NodeColumns.selectSessionMember() + ", "
                + LiveLease.live(tables, "l", "now()") + " IS TRUE AS leads "
                + "FROM " + tables.sessionMembers() + " m JOIN " + tables.sessions() + " x ON x.id = m.session_id "
                + "LEFT JOIN " + tables.leaderLease() + " l ON l.group_name = m.group_name "
                + "AND l.leader_id = x.node_id "
                + "WHERE m.group_name = ? AND x.expires_at > now()";
    }

    /** See {@link dev.baton.core.store.SessionStore#open}. */
    @Override
    public CompletableFuture<String> open(NodeInfo owner, Duration ttl) {
        String session = UUID.randomUUID().toString();
        return sql.submit("open session", c -> {
            try (PreparedStatement ps = c.prepareStatement(open)) {
                NodeColumns.bind(Params.of(ps).text(session).text(owner.id()).bigint(PgLeases.millis(ttl))
                        .text(owner.channelName()), owner);
                ps.executeUpdate();
                return session;
            }
        });
    }

    /** See {@link dev.baton.core.store.SessionStore#keepAlive}. */
    @Override
    public CompletableFuture<Boolean> keepAlive(String session, Duration ttl) {
        return sql.submit("keep session alive", c -> {
            try (PreparedStatement ps = c.prepareStatement(keepAlive)) {
                Params.of(ps).bigint(PgLeases.millis(ttl)).text(session);
                return ps.executeUpdate() == 1;
            }
        });
    }

    /**
     * See {@link dev.baton.core.store.SessionStore#close}: one transaction that deletes the session and its
     * memberships and, if it had not ended yet, sends an unregistered notice for every group it had joined.
     */
    @Override
    public CompletableFuture<Boolean> close(String session) {
        return sql.submit("close session", c -> inTransaction(c, () -> {
            String node;
            List<String> groups = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(close)) {
                Params.of(ps).text(session);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next() || !rs.getBoolean("live")) {
                        return false;
                    }
                    node = rs.getString("node_id");
                    Array array = rs.getArray("groups");
                    groups.addAll(List.of((String[]) array.getArray()));
                }
            }
            if (!groups.isEmpty()) {
                String[] notices = groups.stream().map(group -> memberNoticePrefix(group, MemberNotice.Kind.UNREGISTERED)
                        + node).toArray(String[]::new);
                try (PreparedStatement ps = c.prepareStatement(notifyAll)) {
                    ps.setString(1, tables.channel());
                    ps.setArray(2, c.createArrayOf("text", notices));
                    ps.executeQuery().close();
                }
            }
            return true;
        }));
    }

    /** See {@link dev.baton.core.store.SessionStore#remaining}: one query for all of them. */
    @Override
    public CompletableFuture<Map<String, Duration>> remaining(Set<String> sessions) {
        if (sessions.isEmpty()) {
            return CompletableFuture.completedFuture(Map.of());
        }
        String[] ids = sessions.toArray(String[]::new);
        return sql.submit("read sessions", c -> {
            try (PreparedStatement ps = c.prepareStatement(remaining)) {
                ps.setArray(1, c.createArrayOf("text", ids));
                Map<String, Duration> alive = new HashMap<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        alive.put(rs.getString("id"), Duration.ofNanos(Math.max(0, rs.getLong("remaining_us")) * 1000));
                    }
                }
                return alive;
            }
        });
    }

    /** See {@link dev.baton.core.store.SessionStore#join}. */
    @Override
    public CompletableFuture<Void> join(String group, String session) {
        return membership("join group", join, group, session, MemberNotice.Kind.REGISTERED, rs -> {
            if (!rs.next()) {
                throw new SessionEndedException(session);
            }
            return (Void) null;
        }).exceptionallyCompose(error -> {
            // The session's row went (closed, or swept) between the statement's snapshot and its insert.
            SQLException sql = PgFailures.find(error, SQLException.class);
            return CompletableFuture.<Void>failedFuture(sql != null && "23503".equals(sql.getSQLState())
                    ? new SessionEndedException(session) : error);
        });
    }

    /** See {@link dev.baton.core.store.SessionStore#leave}. */
    @Override
    public CompletableFuture<Boolean> leave(String group, String session) {
        return membership("leave group", leave, group, session, MemberNotice.Kind.UNREGISTERED, ResultSet::next);
    }

    /** See {@link PgLeases#acquire(String, String, NodeInfo)}. */
    @Override
    public CompletableFuture<AcquireResult> acquire(String group, String session, NodeInfo candidate) {
        return leases.acquire(group, session, candidate);
    }

    /** See {@link PgLeases#releaseBound}. */
    @Override
    public CompletableFuture<Boolean> release(String group, String session, long term) {
        return leases.releaseBound(group, session, term);
    }

    /** Reads a membership statement's rows. */
    @FunctionalInterface
    private interface Rows<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /** Runs a membership statement ({@link #MEMBERSHIP_PARAMS}) whose notice, if any, is a {@code kind} one. */
    private <T> CompletableFuture<T> membership(String operation, String statement, String group, String session,
            MemberNotice.Kind kind, Rows<T> rows) {
        String prefix = memberNoticePrefix(group, kind);
        return sql.submit(operation, c -> {
            try (PreparedStatement ps = c.prepareStatement(statement)) {
                Params.of(ps).text(group).text(session).text(tables.channel()).text(prefix);
                try (ResultSet rs = ps.executeQuery()) {
                    return rows.read(rs);
                }
            }
        });
    }

    /** See {@link dev.baton.core.store.SessionStore#members}: by session id, in node id order. */
    @Override
    public CompletableFuture<Map<String, NodeInfo>> members(String group) {
        return sql.submit("list session members", c -> {
            try (PreparedStatement ps = c.prepareStatement(members)) {
                Params.of(ps).text(group);
                List<Map.Entry<String, NodeInfo>> rows = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rows.add(Map.entry(rs.getString("session_id"),
                                NodeColumns.read(rs, rs.getBoolean("leads") ? Role.LEADER : Role.FOLLOWER)));
                    }
                }
                rows.sort(Map.Entry.comparingByValue(Comparator.comparing(NodeInfo::id)));
                Map<String, NodeInfo> bySession = new LinkedHashMap<>();
                rows.forEach(row -> bySession.put(row.getKey(), row.getValue()));
                return bySession;
            }
        });
    }

    /** A member notice's payload up to the node id, which SQL appends. */
    private static String memberNoticePrefix(String group, MemberNotice.Kind kind) {
        return NoticePayload.prefix(NoticePayload.Kind.MEMBER, group) + kind.name().toLowerCase(Locale.ROOT) + " ";
    }

    /** Body of a transaction: JDBC work that returns a value. */
    @FunctionalInterface
    private interface Body<T> {
        T run() throws SQLException;
    }

    /** Runs {@code body} in one transaction on {@code c}: committed if it returns, rolled back if it throws. */
    private static <T> T inTransaction(Connection c, Body<T> body) throws SQLException {
        c.setAutoCommit(false);
        try {
            T result = body.run();
            c.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
            } catch (SQLException ignored) {
                // The connection is broken; the pool discards it and the server rolls back.
            }
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }
}

package dev.baton.postgres.internal;

import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import dev.baton.core.store.MemberNotice;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The process registry on {@code cluster_nodes} (seed 002's table, keyed by group and node). An entry lives until
 * {@code expires_at}, set to the database's {@code now() + ttl} on every registration and heartbeat; expired rows are
 * invisible to reads whether or not they were swept. {@code created_at} survives re-registration of a live entry,
 * {@code last_heartbeat} is the entry's last-seen time, and a node's role is derived from {@code leader_lease} when
 * read (a live lease of either kind, see {@link LiveLease}), so at most one member reads as leader.
 */
public final class PgRegistry {

    private final SqlRunner sql;
    private final Tables tables;
    private final String register;
    private final String heartbeat;
    private final String unregister;
    private final String members;
    private final String member;
    private final String leaderInfo;
    private final String sweep;

    public PgRegistry(SqlRunner sql, Tables tables) {
        this.sql = sql;
        this.tables = tables;
        // "live" is read from the statement's snapshot: whether this registration adds a member (and so publishes a
        // registered notice) or refreshes one. created_at is decided on the locked row itself.
        this.register = "WITH p AS (SELECT CAST(? AS text) AS grp, CAST(? AS text) AS id, CAST(? AS text) AS state, "
                + "CAST(? AS bigint) AS ttl_ms, CAST(? AS text) AS channel, CAST(? AS text) AS notice, "
                + NodeColumns.PARAMS + "), "
                + "old AS (SELECT n.expires_at > now() AS live FROM " + tables.clusterNodes() + " n, p "
                + "WHERE n.group_name = p.grp AND n.node_id = p.id), "
                + "up AS (INSERT INTO " + tables.clusterNodes() + " AS n (group_name, node_id, identifier, hostname, "
                + "port, api_url, state, term, last_heartbeat, is_healthy, created_at, updated_at, expires_at, "
                + "capabilities, metadata) "
                + "SELECT p.grp, p.id, p.identifier, p.hostname, p.port, p.api, p.state, "
                + "COALESCE((SELECT l.term FROM " + tables.leaderLease() + " l WHERE l.group_name = p.grp), 0), "
                + "now(), true, now(), now(), now() + p.ttl_ms * interval '1 millisecond', "
                + NodeColumns.CAPABILITIES_JSON + ", " + NodeColumns.METADATA_JSON + " FROM p "
                + "ON CONFLICT (group_name, node_id) DO UPDATE SET identifier = excluded.identifier, "
                + "hostname = excluded.hostname, port = excluded.port, api_url = excluded.api_url, "
                + "state = excluded.state, term = excluded.term, last_heartbeat = now(), is_healthy = true, "
                + "updated_at = now(), expires_at = excluded.expires_at, capabilities = excluded.capabilities, "
                + "metadata = excluded.metadata, "
                + "created_at = CASE WHEN n.expires_at > now() THEN n.created_at ELSE now() END "
                + "RETURNING n.node_id) "
                + "SELECT CASE WHEN NOT COALESCE((SELECT live FROM old), false) "
                + "THEN pg_notify(p.channel, p.notice) END AS notified FROM up, p";
        this.heartbeat = "UPDATE " + tables.clusterNodes() + " SET last_heartbeat = now(), updated_at = now(), "
                + "is_healthy = true, expires_at = now() + CAST(? AS bigint) * interval '1 millisecond' "
                + "WHERE group_name = ? AND node_id = ? AND expires_at > now()";
        this.unregister = "WITH d AS (DELETE FROM " + tables.clusterNodes() + " WHERE group_name = ? AND node_id = ? "
                + "RETURNING expires_at > now() AS live) "
                + "SELECT d.live, CASE WHEN d.live THEN pg_notify(?, ?) END AS notified FROM d";
        String select = "SELECT " + NodeColumns.selectRegistryRow() + ", l.leader_id IS NOT NULL AS leads "
                + "FROM " + tables.clusterNodes() + " n "
                + "LEFT JOIN " + tables.leaderLease() + " l ON l.group_name = n.group_name "
                + "AND l.leader_id = n.node_id AND " + LiveLease.live(tables, "l", "now()") + " "
                + "WHERE n.group_name = ? AND n.expires_at > now()";
        this.members = select;
        this.member = select + " AND n.node_id = ?";
        this.leaderInfo = "SELECT " + NodeColumns.selectLeaderInfo() + " FROM " + tables.leaderLease() + " l "
                + "WHERE l.group_name = ? AND " + LiveLease.live(tables, "l", "now()");
        this.sweep = "DELETE FROM " + tables.clusterNodes() + " WHERE group_name = ? AND expires_at <= now() "
                + "RETURNING node_id";
    }

    /** See {@link dev.baton.core.store.RegistryStore#register}. */
    public CompletableFuture<Void> register(String group, NodeInfo node, Duration ttl) {
        String notice = NoticePayload.prefix(NoticePayload.Kind.MEMBER, group)
                + new MemberNotice(MemberNotice.Kind.REGISTERED, node.id()).encode();
        return sql.submit("register", c -> {
            try (PreparedStatement ps = c.prepareStatement(register)) {
                NodeColumns.bind(Params.of(ps).text(group).text(node.id())
                        .text(node.role().name().toLowerCase(Locale.ROOT)).bigint(PgLeases.millis(ttl))
                        .text(tables.channel()).text(notice), node);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw new SQLException("register returned no row");
                    }
                    return null;
                }
            }
        });
    }

    /** See {@link dev.baton.core.store.RegistryStore#heartbeat}. */
    public CompletableFuture<Boolean> heartbeat(String group, String nodeId, Duration ttl) {
        return sql.submit("heartbeat", c -> {
            try (PreparedStatement ps = c.prepareStatement(heartbeat)) {
                Params.of(ps).bigint(PgLeases.millis(ttl)).text(group).text(nodeId);
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** See {@link dev.baton.core.store.RegistryStore#unregister}: true only if a live entry was removed. */
    public CompletableFuture<Boolean> unregister(String group, String nodeId) {
        String notice = NoticePayload.prefix(NoticePayload.Kind.MEMBER, group)
                + new MemberNotice(MemberNotice.Kind.UNREGISTERED, nodeId).encode();
        return sql.submit("unregister", c -> {
            try (PreparedStatement ps = c.prepareStatement(unregister)) {
                Params.of(ps).text(group).text(nodeId).text(tables.channel()).text(notice);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() && rs.getBoolean("live");
                }
            }
        });
    }

    /** See {@link dev.baton.core.store.RegistryStore#members}. */
    public CompletableFuture<List<NodeInfo>> members(String group) {
        return sql.submit("list members", c -> {
            try (PreparedStatement ps = c.prepareStatement(members)) {
                Params.of(ps).text(group);
                List<NodeInfo> nodes = readNodes(ps);
                nodes.sort(Comparator.comparing(NodeInfo::id));
                return nodes;
            }
        });
    }

    /** See {@link dev.baton.core.store.RegistryStore#member}. */
    public CompletableFuture<Optional<NodeInfo>> member(String group, String nodeId) {
        return sql.submit("read member", c -> {
            try (PreparedStatement ps = c.prepareStatement(member)) {
                Params.of(ps).text(group).text(nodeId);
                return readNodes(ps).stream().findFirst();
            }
        });
    }

    /** See {@link dev.baton.core.store.RegistryStore#leaderInfo}: the lease row's {@code leader_info}. */
    public CompletableFuture<Optional<NodeInfo>> leaderInfo(String group) {
        return sql.submit("read leader info", c -> {
            try (PreparedStatement ps = c.prepareStatement(leaderInfo)) {
                Params.of(ps).text(group);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(NodeColumns.read(rs, Role.LEADER)) : Optional.empty();
                }
            }
        });
    }

    /** See {@link dev.baton.core.store.RegistryStore#sweepExpired}. */
    public CompletableFuture<List<String>> sweepExpired(String group) {
        return sql.submit("sweep expired members", c -> {
            try (PreparedStatement ps = c.prepareStatement(sweep)) {
                Params.of(ps).text(group);
                List<String> removed = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        removed.add(rs.getString("node_id"));
                    }
                }
                return removed;
            }
        });
    }

    private static List<NodeInfo> readNodes(PreparedStatement ps) throws SQLException {
        List<NodeInfo> nodes = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                nodes.add(NodeColumns.read(rs, rs.getBoolean("leads") ? Role.LEADER : Role.FOLLOWER));
            }
        }
        return nodes;
    }
}

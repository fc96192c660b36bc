package dev.baton.postgres.internal;

import dev.baton.core.store.ClusterEvent;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The cluster event log on {@code cluster_events} (seed 002's table, with a group column). Ids come from a
 * {@code bigserial}, so they increase in append order; {@code timestamp} is the database's {@code now()};
 * {@code event_data} is a JSON object built by PostgreSQL from the data map.
 *
 * <p><b>Retention.</b> Pruning costs an index scan over the group's newest {@code retention} entries, so it is not
 * done on every append: each store prunes a group on its first append to it and then on every
 * {@value #PRUNE_EVERY}th, deleting everything older than the newest {@code retention} rows. A group therefore never
 * holds more than {@code retention} rows plus {@value #PRUNE_EVERY} per store appending to it.
 */
public final class PgEventLog {

    /** A store prunes a group once every this many of its appends to it. */
    public static final int PRUNE_EVERY = 64;

    private final SqlRunner sql;
    private final int retention;
    private final Map<String, AtomicLong> appends = new ConcurrentHashMap<>();
    private final String append;
    private final String prune;
    private final String recent;

    public PgEventLog(SqlRunner sql, Tables tables, int retention) {
        this.sql = sql;
        this.retention = retention;
        this.append = "WITH p AS (SELECT CAST(? AS text) AS grp, CAST(? AS text) AS node, CAST(? AS text) AS type, "
                + "CAST(? AS text[]) AS keys, CAST(? AS text[]) AS vals) "
                + "INSERT INTO " + tables.clusterEvents() + " (group_name, node_id, event_type, event_data) "
                + "SELECT p.grp, p.node, p.type, COALESCE((SELECT jsonb_object_agg(k, v) FROM unnest(p.keys, p.vals) "
                + "AS d(k, v)), '{}'::jsonb) FROM p";
        this.prune = "DELETE FROM " + tables.clusterEvents() + " WHERE group_name = ? AND id < (SELECT id FROM "
                + tables.clusterEvents() + " WHERE group_name = ? ORDER BY id DESC OFFSET ? LIMIT 1)";
        this.recent = "SELECT e.id, e.node_id, e.event_type, md.keys AS data_keys, md.vals AS data_values, "
                + "e.\"timestamp\" AS at FROM " + tables.clusterEvents() + " e "
                + NodeColumns.metadataJoin("e.event_data") + " "
                + "WHERE e.group_name = ? ORDER BY e.id DESC LIMIT ?";
    }

    /** See {@link dev.baton.core.store.EventLogStore#appendEvent}. */
    public CompletableFuture<Void> append(String group, String nodeId, String type, Map<String, String> data) {
        Map<String, String> copy = Map.copyOf(data);
        boolean pruneNow = appends.computeIfAbsent(group, g -> new AtomicLong()).getAndIncrement() % PRUNE_EVERY == 0;
        return sql.submit("append event", c -> {
            try (PreparedStatement ps = c.prepareStatement(append)) {
                Params.of(ps).text(group).text(nodeId).text(type).map(copy);
                ps.executeUpdate();
            }
            if (pruneNow) {
                try (PreparedStatement ps = c.prepareStatement(prune)) {
                    Params.of(ps).text(group).text(group).bigint(retention - 1L);
                    ps.executeUpdate();
                }
            }
            return null;
        });
    }

    /** See {@link dev.baton.core.store.EventLogStore#recentEvents}. */
    public CompletableFuture<List<ClusterEvent>> recent(String group, int limit) {
        return sql.submit("read events", c -> {
            try (PreparedStatement ps = c.prepareStatement(recent)) {
                Params.of(ps).text(group).bigint(Math.max(0, limit));
                List<ClusterEvent> events = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        events.add(new ClusterEvent(rs.getLong("id"), rs.getString("node_id"),
                                rs.getString("event_type"), Params.map(rs, "data_keys", "data_values"),
                                Params.instant(rs, "at")));
                    }
                }
                return events;
            }
        });
    }
}

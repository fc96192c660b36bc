package dev.baton.postgres.internal;

import dev.baton.core.store.FencedMapWrite;
import dev.baton.core.store.FencedValue;
import dev.baton.core.store.FencedWriteResult;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Fenced registers ({@code fenced_registers}) and maps ({@code fenced_maps}): a write under {@code term} is applied
 * only if {@code term} is the group's newest issued term, {@code leader_lease.term}, read in the same statement
 * under {@code FOR SHARE}. The share lock makes a concurrent acquire (which must lock the row to bump the term) wait
 * until the write has committed, so no new term can be issued between the check and the write. A register also
 * refuses a write older than its last one.
 */
public final class PgFenced {

    private final SqlRunner sql;
    private final String write;
    private final String read;
    private final String put;
    private final String remove;
    private final String get;
    private final String entries;

    public PgFenced(SqlRunner sql, Tables tables) {
        this.sql = sql;
        String lease = "lease AS (SELECT l.term FROM " + tables.leaderLease() + " l, p WHERE l.group_name = p.grp "
                + "FOR SHARE OF l)";
        this.write = "WITH p AS (SELECT CAST(? AS text) AS grp, CAST(? AS text) AS name, CAST(? AS bigint) AS term, "
                + "CAST(? AS text) AS writer, CAST(? AS bytea) AS value), " + lease + ", "
                + "w AS (INSERT INTO " + tables.fencedRegisters() + " AS r (group_name, name, term, writer, value, "
                + "updated_at) SELECT p.grp, p.name, p.term, p.writer, p.value, now() FROM p, lease "
                + "WHERE lease.term = p.term "
                + "ON CONFLICT (group_name, name) DO UPDATE SET term = excluded.term, writer = excluded.writer, "
                + "value = excluded.value, updated_at = now() WHERE r.term <= excluded.term RETURNING r.term) "
                + "SELECT EXISTS (SELECT 1 FROM w) AS accepted, GREATEST(COALESCE((SELECT term FROM lease), 0), "
                + "COALESCE((SELECT r.term FROM " + tables.fencedRegisters() + " r, p WHERE r.group_name = p.grp "
                + "AND r.name = p.name), 0)) AS newest";
        this.read = "SELECT term, writer, value FROM " + tables.fencedRegisters() + " WHERE group_name = ? AND name = ?";
        this.put = "WITH p AS (SELECT CAST(? AS text) AS grp, CAST(? AS text) AS map, CAST(? AS text) AS key, "
                + "CAST(? AS bigint) AS term, CAST(? AS text) AS writer, CAST(? AS bytea) AS value), " + lease + ", "
                + "w AS (INSERT INTO " + tables.fencedMaps() + " AS m (group_name, map_name, key, term, writer, value, "
                + "updated_at) SELECT p.grp, p.map, p.key, p.term, p.writer, p.value, now() FROM p, lease "
                + "WHERE lease.term = p.term "
                + "ON CONFLICT (group_name, map_name, key) DO UPDATE SET term = excluded.term, "
                + "writer = excluded.writer, value = excluded.value, updated_at = now() "
                // xmax is 0 on a freshly inserted row and set on one that ON CONFLICT updated.
                + "RETURNING NOT (m.xmax = 0) AS existed) "
                + "SELECT COALESCE((SELECT term FROM lease), 0) AS newest, EXISTS (SELECT 1 FROM w) AS accepted, "
                + "COALESCE((SELECT existed FROM w), false) AS existed";
        this.remove = "WITH p AS (SELECT CAST(? AS text) AS grp, CAST(? AS text) AS map, CAST(? AS text) AS key, "
                + "CAST(? AS bigint) AS term), " + lease + ", "
                + "d AS (DELETE FROM " + tables.fencedMaps() + " m USING p, lease WHERE m.group_name = p.grp "
                + "AND m.map_name = p.map AND m.key = p.key AND lease.term = p.term RETURNING 1) "
                + "SELECT COALESCE((SELECT term FROM lease), 0) AS newest, (SELECT count(*) FROM d) AS removed";
        this.get = "SELECT term, writer, value FROM " + tables.fencedMaps()
                + " WHERE group_name = ? AND map_name = ? AND key = ?";
        this.entries = "SELECT key, term, writer, value FROM " + tables.fencedMaps()
                + " WHERE group_name = ? AND map_name = ?";
    }

    /** See {@link dev.baton.core.store.FencedStore#fencedWrite}. */
    public CompletableFuture<FencedWriteResult> write(String group, String register, String nodeId, long term,
            byte[] value) {
        byte[] copy = value.clone();
        return sql.submit("fenced write", c -> {
            try (PreparedStatement ps = c.prepareStatement(write)) {
                Params.of(ps).text(group).text(register).bigint(term).text(nodeId).bytes(copy);
                try (ResultSet rs = single(ps)) {
                    boolean accepted = rs.getBoolean("accepted");
                    return new FencedWriteResult(accepted, accepted ? term : rs.getLong("newest"));
                }
            }
        });
    }

    /** See {@link dev.baton.core.store.FencedStore#fencedRead}. */
    public CompletableFuture<Optional<FencedValue>> read(String group, String register) {
        return sql.submit("fenced read", c -> {
            try (PreparedStatement ps = c.prepareStatement(read)) {
                Params.of(ps).text(group).text(register);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(value(rs)) : Optional.empty();
                }
            }
        });
    }

    /** See {@link dev.baton.core.store.FencedMapStore#fencedPut}. */
    public CompletableFuture<FencedMapWrite> put(String group, String map, String key, String nodeId, long term,
            byte[] value) {
        byte[] copy = value.clone();
        return sql.submit("fenced put", c -> {
            try (PreparedStatement ps = c.prepareStatement(put)) {
                Params.of(ps).text(group).text(map).text(key).bigint(term).text(nodeId).bytes(copy);
                try (ResultSet rs = single(ps)) {
                    boolean accepted = rs.getBoolean("accepted");
                    return new FencedMapWrite(accepted, accepted ? term : rs.getLong("newest"),
                            accepted && rs.getBoolean("existed"));
                }
            }
        });
    }

    /** See {@link dev.baton.core.store.FencedMapStore#fencedRemove}. */
    public CompletableFuture<FencedMapWrite> remove(String group, String map, String key, String nodeId, long term) {
        return sql.submit("fenced remove", c -> {
            try (PreparedStatement ps = c.prepareStatement(remove)) {
                Params.of(ps).text(group).text(map).text(key).bigint(term);
                try (ResultSet rs = single(ps)) {
                    long newest = rs.getLong("newest");
                    boolean accepted = newest != 0 && newest == term;
                    return new FencedMapWrite(accepted, newest, accepted && rs.getLong("removed") > 0);
                }
            }
        });
    }

    /** See {@link dev.baton.core.store.FencedMapStore#mapGet}. */
    public CompletableFuture<Optional<FencedValue>> get(String group, String map, String key) {
        return sql.submit("read map entry", c -> {
            try (PreparedStatement ps = c.prepareStatement(get)) {
                Params.of(ps).text(group).text(map).text(key);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(value(rs)) : Optional.empty();
                }
            }
        });
    }

    /** See {@link dev.baton.core.store.FencedMapStore#mapEntries}; ordered by key as Java orders strings. */
    public CompletableFuture<SortedMap<String, FencedValue>> entries(String group, String map) {
        return sql.submit("list map entries", c -> {
            try (PreparedStatement ps = c.prepareStatement(entries)) {
                Params.of(ps).text(group).text(map);
                SortedMap<String, FencedValue> result = new TreeMap<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        result.put(rs.getString("key"), value(rs));
                    }
                }
                return result;
            }
        });
    }

    private static ResultSet single(PreparedStatement ps) throws SQLException {
        ResultSet rs = ps.executeQuery();
        if (!rs.next()) {
            rs.close();
            throw new SQLException("fenced statement returned no row");
        }
        return rs;
    }

    private static FencedValue value(ResultSet rs) throws SQLException {
        return new FencedValue(rs.getLong("term"), rs.getString("writer"), rs.getBytes("value"));
    }
}

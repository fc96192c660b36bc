package dev.baton.postgres.internal;

import dev.baton.core.store.LeaderRecord;
import dev.baton.core.store.LeaderRecordWrite;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Leader records ({@code leader_records}, schema version 2): seed 004's {@code GMLeaderSetterGetter} as one row per
 * group. A write is one {@code INSERT … ON CONFLICT DO UPDATE} that replaces the row only if the stored term is lower,
 * or equal with the same leader, and otherwise rewrites it unchanged, so that the statement always returns the row
 * it decided against.
 *
 * <p>Why the unchanged rewrite: with a {@code WHERE} on the update, a refused write returns nothing, and a second
 * query for the stored row would read the statement's snapshot, which may predate the row a concurrent writer just
 * committed. ON CONFLICT instead locks and evaluates the newest committed row version, so concurrent writes of one
 * group queue on the row lock and each decides on its predecessor's result: a compare-and-set.
 */
public final class PgLeaderRecords {

    private final SqlRunner sql;
    private final String write;
    private final String read;

    public PgLeaderRecords(SqlRunner sql, Tables tables) {
        this.sql = sql;
        String wins = "(r.term < excluded.term OR (r.term = excluded.term AND r.leader_id = excluded.leader_id))";
        this.write = "INSERT INTO " + tables.leaderRecords() + " AS r (group_name, term, leader_id, process_id, "
                + "address, updated_at) VALUES (?, ?, ?, ?, ?, now()) "
                + "ON CONFLICT (group_name) DO UPDATE SET "
                + "term = CASE WHEN " + wins + " THEN excluded.term ELSE r.term END, "
                + "leader_id = CASE WHEN " + wins + " THEN excluded.leader_id ELSE r.leader_id END, "
                + "process_id = CASE WHEN " + wins + " THEN excluded.process_id ELSE r.process_id END, "
                + "address = CASE WHEN " + wins + " THEN excluded.address ELSE r.address END, "
                + "updated_at = CASE WHEN " + wins + " THEN now() ELSE r.updated_at END "
                + "RETURNING r.term, r.leader_id, r.process_id, r.address";
        this.read = "SELECT term, leader_id, process_id, address FROM " + tables.leaderRecords()
                + " WHERE group_name = ?";
    }

    /** See {@link dev.baton.core.store.LeaderRecordStore#readLeader}. */
    public CompletableFuture<Optional<LeaderRecord>> read(String group) {
        return sql.submit("read leader record", c -> {
            try (PreparedStatement ps = c.prepareStatement(read)) {
                Params.of(ps).text(group);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(record(group, rs)) : Optional.empty();
                }
            }
        });
    }

    /**
     * See {@link dev.baton.core.store.LeaderRecordStore#writeLeader}. The row returned is the one stored after the
     * statement; it carries the written term and leader exactly when the write was accepted (a refused write of the
     * same term always names another leader).
     */
    public CompletableFuture<LeaderRecordWrite> write(LeaderRecord record) {
        return sql.submit("write leader record", c -> {
            try (PreparedStatement ps = c.prepareStatement(write)) {
                Params.of(ps).text(record.group()).bigint(record.term()).text(record.leaderId())
                        .bigint(record.processId()).text(record.address());
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw new SQLException("the leader record upsert returned no row");
                    }
                    LeaderRecord stored = record(record.group(), rs);
                    boolean accepted = stored.term() == record.term() && stored.leaderId().equals(record.leaderId());
                    return new LeaderRecordWrite(accepted, stored);
                }
            }
        });
    }

    private static LeaderRecord record(String group, ResultSet rs) throws SQLException {
        return new LeaderRecord(group, rs.getLong("term"), rs.getString("leader_id"), rs.getLong("process_id"),
                rs.getString("address"));
    }
}

package dev.baton.testkit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The SQL behind {@link PostgresServer#snapshotSchema} and {@link PostgresServer#restoreSchema}: a logical copy of a
 * schema's tables into a side schema, and putting it back. Plain JDBC with the PostgreSQL driver, which the testkit
 * declares optional: every module that talks to PostgreSQL has it anyway.
 */
final class PostgresSchemaCopy {

    /** SQLSTATE of "deadlock detected". */
    private static final String DEADLOCK = "40P01";
    private static final int RESTORE_ATTEMPTS = 5;

    /** Tables whose rows are their own: ordinary and partitioned tables, not the partitions of one (rows twice). */
    private static final String TABLES = "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            + "WHERE n.nspname = ? AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY c.relname";
    private static final String SEQUENCES = "SELECT c.relname FROM pg_class c JOIN pg_namespace n "
            + "ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relkind = 'S' ORDER BY c.relname";
    private static final String COLUMNS = "SELECT column_name FROM information_schema.columns "
            + "WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position";

    private PostgresSchemaCopy() {}

    /**
     * Copies every table of {@code schema} into the new schema {@code side} ({@code CREATE TABLE side.t AS TABLE
     * schema.t}) and reads every sequence's position, in one repeatable-read transaction, so the copy is of one
     * moment, as a backup is.
     */
    static PostgresServer.SchemaSnapshot snapshot(PostgresServer server, String schema, String side) {
        try (Connection c = connect(server, "snapshot schema " + schema)) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            requireSchema(c, server, schema);
            List<String> tables = names(c, TABLES, schema);
            Map<String, long[]> sequences = new LinkedHashMap<>();
            try (Statement s = c.createStatement()) {
                s.execute("CREATE SCHEMA " + quote(side));
                for (String table : tables) {
                    s.execute("CREATE TABLE " + qualified(side, table) + " AS TABLE " + qualified(schema, table));
                }
                for (String sequence : names(c, SEQUENCES, schema)) {
                    try (ResultSet rs = s.executeQuery("SELECT last_value, is_called FROM "
                            + qualified(schema, sequence))) {
                        rs.next();
                        sequences.put(sequence, new long[] {rs.getLong(1), rs.getBoolean(2) ? 1 : 0});
                    }
                }
            }
            c.commit();
            return new PostgresServer.SchemaSnapshot(server, schema, side, tables, sequences);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot snapshot schema " + schema + " on " + server + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * In one transaction: empties every table of the snapshot's schema (those created since too: the backup had no
     * rows for them), puts the snapshot's rows back and sets each sequence to where it was. Triggers and foreign-key
     * checks stay off meanwhile ({@code session_replication_role = replica}), as a restore from a backup fires none.
     */
    static void restore(PostgresServer server, PostgresServer.SchemaSnapshot snapshot) {
        // Clients reconnect the moment the server is back, and their transactions lock tables in their own order, so
        // the TRUNCATE can deadlock with one of them; PostgreSQL then aborts one side, and a restore that lost is
        // simply run again.
        for (int attempt = 1; ; attempt++) {
            try {
                restoreOnce(server, snapshot);
                return;
            } catch (IllegalStateException e) {
                if (!(e.getCause() instanceof SQLException sql) || !DEADLOCK.equals(sql.getSQLState())
                        || attempt == RESTORE_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    private static void restoreOnce(PostgresServer server, PostgresServer.SchemaSnapshot snapshot) {
        String schema = snapshot.schema();
        try (Connection c = connect(server, "restore schema " + schema)) {
            c.setAutoCommit(false);
            requireSchema(c, server, schema);
            List<String> current = names(c, TABLES, schema);
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCAL session_replication_role = replica");
                if (!current.isEmpty()) {
                    List<String> all = new ArrayList<>();
                    current.forEach(table -> all.add(qualified(schema, table)));
                    s.execute("TRUNCATE " + String.join(", ", all));
                }
                for (String table : snapshot.tables()) {
                    if (!current.contains(table)) {
                        throw new IllegalStateException("table " + schema + "." + table + " of the snapshot no "
                                + "longer exists on " + server);
                    }
                    String columns = String.join(", ", quoted(names(c, COLUMNS, snapshot.side(), table)));
                    s.execute("INSERT INTO " + qualified(schema, table) + " (" + columns + ") OVERRIDING SYSTEM VALUE "
                            + "SELECT " + columns + " FROM " + qualified(snapshot.side(), table));
                }
                for (Map.Entry<String, long[]> sequence : snapshot.sequences().entrySet()) {
                    try (PreparedStatement ps = c.prepareStatement("SELECT setval(CAST(? AS regclass), ?, ?)")) {
                        ps.setString(1, qualified(schema, sequence.getKey()));
                        ps.setLong(2, sequence.getValue()[0]);
                        ps.setBoolean(3, sequence.getValue()[1] == 1);
                        ps.executeQuery().close();
                    }
                }
            }
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot restore schema " + schema + " on " + server + ": "
                    + e.getMessage(), e);
        }
    }

    private static Connection connect(PostgresServer server, String purpose) throws SQLException {
        try {
            Class.forName("org.postgresql.Driver");
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(purpose + " needs the PostgreSQL JDBC driver (org.postgresql:postgresql) "
                    + "on the class path");
        }
        return DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
    }

    private static void requireSchema(Connection c, PostgresServer server, String schema) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_namespace WHERE nspname = ?")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalArgumentException("schema " + schema + " does not exist on " + server);
                }
            }
        }
    }

    private static List<String> names(Connection c, String sql, String... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setString(i + 1, params[i]);
            }
            List<String> names = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
            }
            return names;
        }
    }

    private static List<String> quoted(List<String> names) {
        List<String> quoted = new ArrayList<>(names.size());
        names.forEach(name -> quoted.add(quote(name)));
        return quoted;
    }

    private static String qualified(String schema, String name) {
        return quote(schema) + "." + quote(name);
    }

    private static String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }
}

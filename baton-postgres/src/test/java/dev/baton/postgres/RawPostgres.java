package dev.baton.postgres;

import dev.baton.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** Plain JDBC on a test server, to look at (and tamper with) the tables behind a store's back. */
final class RawPostgres {

    private RawPostgres() {}

    static Connection connect(PostgresServer pg) {
        try {
            return DriverManager.getConnection(pg.jdbcUrl(), pg.user(), pg.password());
        } catch (SQLException e) {
            throw new IllegalStateException("cannot connect to the test server: " + e.getMessage(), e);
        }
    }

    /** Runs a statement that returns no rows. */
    static void execute(PostgresServer pg, String sql, Object... params) {
        try (Connection c = connect(pg); PreparedStatement ps = prepare(c, sql, params)) {
            ps.execute();
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** The first column of the first row, or null. */
    static Object value(PostgresServer pg, String sql, Object... params) {
        List<List<Object>> rows = rows(pg, sql, params);
        return rows.isEmpty() ? null : rows.get(0).get(0);
    }

    static long count(PostgresServer pg, String sql, Object... params) {
        return ((Number) value(pg, sql, params)).longValue();
    }

    static List<List<Object>> rows(PostgresServer pg, String sql, Object... params) {
        try (Connection c = connect(pg); PreparedStatement ps = prepare(c, sql, params);
             ResultSet rs = ps.executeQuery()) {
            List<List<Object>> rows = new ArrayList<>();
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<Object> row = new ArrayList<>();
                for (int i = 1; i <= columns; i++) {
                    row.add(rs.getObject(i));
                }
                rows.add(row);
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** Backends connected with an application_name starting with {@code prefix}, other than this probe. */
    static long backends(PostgresServer pg, String prefix) {
        return count(pg, "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE ? "
                + "AND pid <> pg_backend_pid()", prefix + "%");
    }

    private static PreparedStatement prepare(Connection c, String sql, Object... params) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        for (int i = 0; i < params.length; i++) {
            ps.setObject(i + 1, params[i]);
        }
        return ps;
    }
}

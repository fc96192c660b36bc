package dev.baton.postgres.internal;

import dev.baton.core.store.StoreException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Creates or checks Baton's tables at start. The SQL ships as one resource, {@value #RESOURCE}, written for psql
 * ({@code :"schema"} and {@code :'schema'} are psql variables) so that an administrator can apply the very same file
 * by hand; the store substitutes the configured schema and runs it in one transaction under a transaction-level
 * advisory lock, so stores starting together for the first time queue instead of racing.
 *
 * <p>The schema is versioned by {@code schema_version}: a store refuses a schema newer than {@link #VERSION}, whose
 * tables it might misuse, and with {@code createSchema=false} it also refuses a schema that is missing a table or
 * was never stamped with a version.
 */
public final class SchemaSetup {

    /** The schema version this code reads and writes. */
    public static final int VERSION = 1;

    /** Where the schema script ships, on the class path. */
    public static final String RESOURCE = "dev/baton/postgres/schema-v1.sql";

    private final SqlRunner sql;
    private final Tables tables;

    public SchemaSetup(SqlRunner sql, Tables tables) {
        this.sql = sql;
        this.tables = tables;
    }

    /** The script for {@code schema}, with the psql variables replaced. */
    public static String script(String schema) {
        String text;
        try (InputStream in = SchemaSetup.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the class path");
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
        return text.replace(":\"schema\"", Tables.quoteIdentifier(schema))
                .replace(":'schema'", Tables.quoteLiteral(schema));
    }

    /**
     * Creates whatever is missing, after checking that an existing schema is not newer than this code. Blocks.
     *
     * @throws StoreException naming the schema and what is wrong
     */
    public void create() {
        sql.runNow("create schema " + tables.schema(), c -> {
            c.setAutoCommit(false);
            try {
                try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))")) {
                    lock.setString(1, "baton schema " + tables.schema());
                    lock.executeQuery().close();
                }
                if (exists(c, "schema_version")) {
                    refuseNewer(c);
                }
                try (Statement statement = c.createStatement()) {
                    statement.execute(script(tables.schema()));
                }
                c.commit();
                return null;
            } catch (SQLException e) {
                rollbackQuietly(c);
                if ("42501".equals(e.getSQLState())) {
                    throw new StoreException("cannot create schema " + tables.schema() + ": " + PgFailures.shortReason(e)
                            + ". Grant CREATE on the database, or have an administrator apply " + RESOURCE + " ("
                            + psqlHint() + ") and connect with createSchema(false)", e);
                }
                throw e;
            } catch (RuntimeException e) {
                rollbackQuietly(c);
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        });
    }

    /**
     * Checks that every table exists and the version is exactly {@link #VERSION}, creating nothing. Blocks.
     *
     * @throws StoreException naming the missing tables or the version found
     */
    public void verify() {
        sql.runNow("check schema " + tables.schema(), c -> {
            List<String> missing = new ArrayList<>();
            for (String table : Tables.ALL) {
                if (!exists(c, table)) {
                    missing.add(tables.schema() + "." + table);
                }
            }
            if (!missing.isEmpty()) {
                throw new StoreException("schema " + tables.schema() + " is not set up and createSchema is false: "
                        + (missing.size() == 1 ? "table " : "tables ") + String.join(", ", missing)
                        + (missing.size() == 1 ? " is" : " are") + " missing. Apply " + RESOURCE
                        + " from the baton-postgres jar (" + psqlHint() + "), or connect with createSchema(true)");
            }
            Integer version = version(c);
            if (version == null) {
                throw new StoreException("schema " + tables.schema() + " has no row in schema_version (expected "
                        + "version " + VERSION + "): apply " + RESOURCE + " (" + psqlHint() + ")");
            }
            if (version > VERSION) {
                throw newer(version);
            }
            if (version < VERSION) {
                throw new StoreException("schema " + tables.schema() + " is at version " + version + ", older than "
                        + "version " + VERSION + " which this baton-postgres needs: apply " + RESOURCE + " ("
                        + psqlHint() + ")");
            }
            return null;
        });
    }

    private void refuseNewer(Connection c) throws SQLException {
        Integer version = version(c);
        if (version != null && version > VERSION) {
            throw newer(version);
        }
    }

    private StoreException newer(int version) {
        return new StoreException("schema " + tables.schema() + " is at version " + version + ", newer than version "
                + VERSION + " which this baton-postgres supports: refusing to run against it; upgrade baton-postgres");
    }

    private Integer version(Connection c) throws SQLException {
        try (Statement statement = c.createStatement();
             ResultSet rs = statement.executeQuery("SELECT max(version) FROM " + tables.schemaVersion())) {
            rs.next();
            int version = rs.getInt(1);
            return rs.wasNull() ? null : version;
        }
    }

    private boolean exists(Connection c, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            ps.setString(1, Tables.quoteIdentifier(tables.schema()) + "." + table);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private String psqlHint() {
        return "psql -v schema=" + tables.schema() + " -1 -f schema-v1.sql";
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // The connection is broken; the pool discards it and the server rolls back.
        }
    }
}

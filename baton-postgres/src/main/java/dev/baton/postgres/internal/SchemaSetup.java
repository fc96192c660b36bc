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
 * Creates, upgrades or checks Baton's tables at start. Each schema version ships as one resource,
 * {@code dev/baton/postgres/schema-v<N>.sql}, written for psql ({@code :"schema"} and {@code :'schema'} are psql
 * variables) so that an administrator can apply the very same files by hand. Version N's script only adds to version
 * N - 1 and stamps {@code schema_version} with N; a shipped script is never edited.
 *
 * <p>The store substitutes the configured schema and applies, in one transaction under a transaction-level advisory
 * lock, every script newer than the schema's current version, so stores starting together queue instead of racing,
 * and a version 1 schema is upgraded in place with its data. A store refuses a schema newer than {@link #VERSION},
 * whose tables it might misuse; with {@code createSchema=false} it also refuses a schema that is missing a table, was
 * never stamped with a version, or is older than {@link #VERSION} (naming the scripts to apply).
 */
public final class SchemaSetup {

    /** The schema version this code reads and writes. */
    public static final int VERSION = 3;

    /** The first version's script, the one a new database starts from; later versions follow it. */
    public static final String RESOURCE = "dev/baton/postgres/schema-v1.sql";

    private final SqlRunner sql;
    private final Tables tables;

    public SchemaSetup(SqlRunner sql, Tables tables) {
        this.sql = sql;
        this.tables = tables;
    }

    /** The class-path location of version {@code version}'s script. */
    public static String resource(int version) {
        return "dev/baton/postgres/schema-v" + version + ".sql";
    }

    /** Version {@code version}'s script for {@code schema}, with the psql variables replaced. */
    public static String script(String schema, int version) {
        String resource = resource(version);
        String text;
        try (InputStream in = SchemaSetup.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the class path");
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
        return text.replace(":\"schema\"", Tables.quoteIdentifier(schema))
                .replace(":'schema'", Tables.quoteLiteral(schema));
    }

    /**
     * Applies every version the schema lacks, after checking that an existing schema is not newer than this code.
     * Blocks.
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
                int current = 0;
                if (exists(c, "schema_version")) {
                    Integer version = version(c);
                    if (version != null && version > VERSION) {
                        throw newer(version);
                    }
                    current = version == null ? 0 : version;
                }
                // A schema that lost its version rows gets every script again: each statement is idempotent.
                for (int version = current + 1; version <= VERSION; version++) {
                    try (Statement statement = c.createStatement()) {
                        statement.execute(script(tables.schema(), version));
                    }
                }
                c.commit();
                return null;
            } catch (SQLException e) {
                rollbackQuietly(c);
                if ("42501".equals(e.getSQLState())) {
                    throw new StoreException("cannot create schema " + tables.schema() + ": " + PgFailures.shortReason(e)
                            + ". Grant CREATE on the database, or have an administrator apply the schema scripts ("
                            + psqlHint(1) + ") and connect with createSchema(false)", e);
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
     * Checks that the version is exactly {@link #VERSION} and every table exists, creating nothing. Blocks.
     *
     * @throws StoreException naming the missing tables, or the version found and the scripts to apply
     */
    public void verify() {
        sql.runNow("check schema " + tables.schema(), c -> {
            Integer version = exists(c, "schema_version") ? version(c) : null;
            if (version != null && version > VERSION) {
                throw newer(version);
            }
            if (version != null && version < VERSION) {
                throw new StoreException("schema " + tables.schema() + " is at version " + version + ", older than "
                        + "version " + VERSION + " which this baton-postgres needs: apply " + scripts(version + 1)
                        + " (" + psqlHint(version + 1) + "), or connect with createSchema(true) to upgrade it");
            }
            List<String> missing = new ArrayList<>();
            for (String table : Tables.ALL) {
                if (!exists(c, table)) {
                    missing.add(tables.schema() + "." + table);
                }
            }
            if (!missing.isEmpty()) {
                throw new StoreException("schema " + tables.schema() + " is not set up and createSchema is false: "
                        + (missing.size() == 1 ? "table " : "tables ") + String.join(", ", missing)
                        + (missing.size() == 1 ? " is" : " are") + " missing. Apply " + scripts(1)
                        + " from the baton-postgres jar (" + psqlHint(1) + "), or connect with createSchema(true)");
            }
            if (version == null) {
                throw new StoreException("schema " + tables.schema() + " has no row in schema_version (expected "
                        + "version " + VERSION + "): apply " + scripts(1) + " (" + psqlHint(1) + ")");
            }
            return null;
        });
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

    /** The scripts from version {@code from} to {@link #VERSION}, as class-path resources. */
    private static String scripts(int from) {
        List<String> names = new ArrayList<>();
        for (int version = from; version <= VERSION; version++) {
            names.add(resource(version));
        }
        return names.size() == 1 ? names.get(0) : String.join(" then ", names);
    }

    /** One psql command applying the scripts from version {@code from} on, in order, in one transaction. */
    private String psqlHint(int from) {
        StringBuilder command = new StringBuilder("psql -v schema=" + tables.schema() + " -1");
        for (int version = from; version <= VERSION; version++) {
            command.append(" -f schema-v").append(version).append(".sql");
        }
        return command.toString();
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // The connection is broken; the pool discards it and the server rolls back.
        }
    }
}

package dev.baton.postgres.internal;

/**
 * The schema-qualified names of Baton's tables and the NOTIFY channel, for one schema. The schema name is validated
 * by the options (lower-case letters, digits, underscores) and quoted all the same.
 */
public final class Tables {

    /** Every table of the current schema version, in the order the verification reports them. */
    public static final java.util.List<String> ALL = java.util.List.of("schema_version", "leader_lease",
            "cluster_nodes", "cluster_events", "fenced_registers", "fenced_maps", "leader_records", "sessions",
            "session_members");

    private final String schema;
    private final String quoted;

    public Tables(String schema) {
        this.schema = schema;
        this.quoted = quoteIdentifier(schema);
    }

    /** The schema name, unquoted. */
    public String schema() {
        return schema;
    }

    /** The NOTIFY channel of the schema: the schema's own name. */
    public String channel() {
        return schema;
    }

    public String schemaVersion() {
        return quoted + ".schema_version";
    }

    public String leaderLease() {
        return quoted + ".leader_lease";
    }

    public String clusterNodes() {
        return quoted + ".cluster_nodes";
    }

    public String clusterEvents() {
        return quoted + ".cluster_events";
    }

    public String fencedRegisters() {
        return quoted + ".fenced_registers";
    }

    public String fencedMaps() {
        return quoted + ".fenced_maps";
    }

    /** Seed 004's leader record per group (schema version 2). */
    public String leaderRecords() {
        return quoted + ".leader_records";
    }

    /** The sessions of processes (schema version 3): a session's group leases live as long as it does. */
    public String sessions() {
        return quoted + ".sessions";
    }

    /** The groups each session joined (schema version 3). */
    public String sessionMembers() {
        return quoted + ".session_members";
    }

    /** {@code "name"}, with inner quotes doubled. */
    public static String quoteIdentifier(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }

    /** {@code 'text'}, with inner quotes doubled (standard_conforming_strings is on since PostgreSQL 9.1). */
    public static String quoteLiteral(String text) {
        return "'" + text.replace("'", "''") + "'";
    }
}

package dev.baton.postgres.internal;

import dev.baton.core.Capabilities;
import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import java.net.URI;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * How a {@link NodeInfo} is kept in PostgreSQL, both in {@code cluster_nodes} (plain columns, with capabilities and
 * metadata as JSON objects) and in {@code leader_lease.leader_info} (one JSON object with seed 000's
 * {@code ProcessInfo} field names: {@code processId}, {@code identifier}, {@code role}, {@code apiAddress},
 * {@code channelName}, {@code capabilities}, {@code metadata}).
 *
 * <p>JSON is built by PostgreSQL ({@code jsonb_build_object}, {@code jsonb_object_agg} over two {@code text[]}
 * parameters) and read back through {@code ->>} and, for a node's metadata, as the object's text split by
 * {@link MetadataJson}, so Baton needs no JSON library here.
 * Reads that select a node use the column labels below.
 */
final class NodeColumns {

    /** Parameters bound by {@link #bind}, in order, as SQL select-list items of a parameter CTE. */
    static final String PARAMS = "CAST(? AS text) AS identifier, CAST(? AS text) AS api, CAST(? AS text) AS hostname, "
            + "CAST(? AS integer) AS port, CAST(? AS boolean) AS can_process, CAST(? AS integer) AS max_subs, "
            + "CAST(? AS integer) AS pref_load, CAST(? AS text[]) AS meta_keys, CAST(? AS text[]) AS meta_values";

    /** The capabilities object, from the parameter CTE {@code p}. */
    static final String CAPABILITIES_JSON = "jsonb_build_object('canProcessDetections', p.can_process, "
            + "'maxSubscriptions', p.max_subs, 'preferredWorkload', p.pref_load)";

    /** The metadata object, from the parameter CTE {@code p}. */
    static final String METADATA_JSON = "COALESCE((SELECT jsonb_object_agg(mk, mv) FROM unnest(p.meta_keys, "
            + "p.meta_values) AS m(mk, mv)), '{}'::jsonb)";

    /**
     * A node's info object (seed 000's ProcessInfo field names, without a role), from the parameter CTE {@code p}: a
     * session's {@code node_info}, whose role is derived from the group's lease when read.
     */
    static final String NODE_INFO_JSON = "jsonb_build_object('processId', p.id, 'nodeId', p.id, "
            + "'identifier', p.identifier, 'apiAddress', p.api, 'channelName', p.channel_name, "
            + "'capabilities', " + CAPABILITIES_JSON + ", 'metadata', " + METADATA_JSON + ")";

    /** The leader_info object: {@link #NODE_INFO_JSON} with seed 000's leader role. */
    static final String LEADER_INFO_JSON = "(" + NODE_INFO_JSON + " || jsonb_build_object('role', 'master'))";

    private NodeColumns() {}

    /** Binds {@link #PARAMS}. */
    static Params bind(Params params, NodeInfo node) throws SQLException {
        Capabilities c = node.capabilities();
        return params.text(node.identifier()).text(node.apiAddress()).text(hostname(node)).integer(port(node))
                .bool(c.canProcessDetections()).integer(c.maxSubscriptions()).integer(c.preferredWorkload())
                .map(node.metadata());
    }

    /** The select-list items that {@link #read} expects, for a {@code cluster_nodes} row aliased {@code n}. */
    static String selectRegistryRow() {
        return "n.node_id AS id, n.identifier AS identifier, n.api_url AS api, "
                + "(n.capabilities->>'canProcessDetections')::boolean AS can_process, "
                + "(n.capabilities->>'maxSubscriptions')::integer AS max_subs, "
                + "(n.capabilities->>'preferredWorkload')::integer AS pref_load, "
                + "n.metadata::text AS meta_json, n.created_at AS registered_at, "
                + "n.last_heartbeat AS last_seen";
    }

    /** The select-list items that {@link #read} expects, for a {@code leader_lease} row aliased {@code l}. */
    static String selectLeaderInfo() {
        return selectNodeJson("l.leader_info", "l.leader_id", "l.api_url", "l.acquired_at", "l.renewed_at");
    }

    /**
     * The select-list items that {@link #read} expects, for a {@code sessions} row aliased {@code x} and the
     * {@code session_members} row aliased {@code m} that joined it to a group.
     */
    static String selectSessionMember() {
        return selectNodeJson("x.node_info", "x.node_id", "NULL", "m.joined_at", "x.last_seen");
    }

    /**
     * The select-list items that {@link #read} expects, from a node info JSON object ({@link #NODE_INFO_JSON}'s
     * fields), with the SQL expressions that stand in for a missing id or API address, and the two times.
     */
    private static String selectNodeJson(String json, String id, String api, String registeredAt, String lastSeen) {
        return "COALESCE(" + json + "->>'processId', " + id + ") AS id, "
                + "COALESCE(" + json + "->>'identifier', " + id + ") AS identifier, "
                + "COALESCE(" + json + "->>'apiAddress', " + api + ") AS api, "
                + "(" + json + "->'capabilities'->>'canProcessDetections')::boolean AS can_process, "
                + "(" + json + "->'capabilities'->>'maxSubscriptions')::integer AS max_subs, "
                + "(" + json + "->'capabilities'->>'preferredWorkload')::integer AS pref_load, "
                + "(" + json + "->'metadata')::text AS meta_json, " + registeredAt + " AS registered_at, "
                + lastSeen + " AS last_seen";
    }

    /** A lateral join that turns the JSON object {@code jsonExpression} into {@code md.keys} and {@code md.vals}. */
    static String metadataJoin(String jsonExpression) {
        return "LEFT JOIN LATERAL (SELECT array_agg(key ORDER BY key) AS keys, array_agg(value ORDER BY key) AS vals "
                + "FROM jsonb_each_text(" + jsonExpression + ") AS e) AS md ON true";
    }

    /** A node from a row selected by {@link #selectRegistryRow()} or {@link #selectLeaderInfo()}. */
    static NodeInfo read(ResultSet rs, Role role) throws SQLException {
        Capabilities d = Capabilities.DEFAULT;
        boolean canProcess = rs.getBoolean("can_process");
        if (rs.wasNull()) {
            canProcess = d.canProcessDetections();
        }
        int maxSubscriptions = rs.getInt("max_subs");
        if (rs.wasNull()) {
            maxSubscriptions = d.maxSubscriptions();
        }
        int preferredWorkload = rs.getInt("pref_load");
        if (rs.wasNull()) {
            preferredWorkload = d.preferredWorkload();
        }
        String id = rs.getString("id");
        String identifier = rs.getString("identifier");
        return new NodeInfo(id, identifier == null || identifier.isBlank() ? id : identifier, rs.getString("api"),
                role, new Capabilities(canProcess, maxSubscriptions, preferredWorkload),
                MetadataJson.read(rs.getString("meta_json")), Params.instant(rs, "registered_at"),
                Params.instant(rs, "last_seen"));
    }

    /** The host of the API address, for seed 002's {@code hostname} column; {@code null} if there is none. */
    static String hostname(NodeInfo node) {
        URI uri = apiUri(node);
        return uri == null ? null : uri.getHost();
    }

    /** The port of the API address (or its scheme's default), for seed 002's {@code port} column. */
    static Integer port(NodeInfo node) {
        URI uri = apiUri(node);
        if (uri == null) {
            return null;
        }
        if (uri.getPort() > 0) {
            return uri.getPort();
        }
        return switch (uri.getScheme() == null ? "" : uri.getScheme()) {
            case "http", "ws" -> 80;
            case "https", "wss" -> 443;
            default -> null;
        };
    }

    private static URI apiUri(NodeInfo node) {
        if (node.apiAddress() == null) {
            return null;
        }
        try {
            URI uri = URI.create(node.apiAddress());
            return uri.getHost() == null ? null : uri;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}

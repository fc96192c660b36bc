-- Baton's PostgreSQL schema, version 1 (seed 002's tables, keyed by group).
--
-- PostgresStore applies this file at start unless createSchema is false, replacing :"schema" with the configured
-- schema name (default baton). To apply it yourself, run it in ONE transaction, e.g.
--
--     psql -v schema=baton -1 -f schema-v1.sql "postgresql://admin@db.example:5432/app"
--
-- Every statement is idempotent, so running it again changes nothing. The advisory lock makes concurrent first
-- starts queue up instead of racing on CREATE ... IF NOT EXISTS (which is not safe against itself).

SELECT pg_advisory_xact_lock(hashtext('baton schema ' || :'schema'));

CREATE SCHEMA IF NOT EXISTS :"schema";

-- One row per schema version applied; the store refuses to run against a version newer than it knows.
CREATE TABLE IF NOT EXISTS :"schema".schema_version (
    version     integer     PRIMARY KEY,
    applied_at  timestamptz NOT NULL DEFAULT now()
);

-- One row per group, never deleted: a release clears leader_id and ends expires_at but keeps term, and the next
-- acquire issues GREATEST(term + 1, the database clock in microseconds since the epoch), so terms strictly increase
-- even after this table comes back older (a restored backup). Terms are assigned here, never by a node.
CREATE TABLE IF NOT EXISTS :"schema".leader_lease (
    group_name   text        PRIMARY KEY,
    leader_id    text,
    term         bigint      NOT NULL,
    acquired_at  timestamptz,
    expires_at   timestamptz,
    renewed_at   timestamptz,
    hostname     text,
    api_url      text,
    leader_info  jsonb
);

-- The process registry. expires_at (database clock) is the entry's TTL; role is derived from leader_lease when read.
CREATE TABLE IF NOT EXISTS :"schema".cluster_nodes (
    group_name      text        NOT NULL,
    node_id         text        NOT NULL,
    identifier      text        NOT NULL,
    hostname        text,
    port            integer,
    api_url         text,
    state           text        NOT NULL,
    term            bigint      NOT NULL DEFAULT 0,
    last_heartbeat  timestamptz NOT NULL DEFAULT now(),
    is_healthy      boolean     NOT NULL DEFAULT true,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    expires_at      timestamptz NOT NULL,
    capabilities    jsonb       NOT NULL DEFAULT '{}'::jsonb,
    metadata        jsonb       NOT NULL DEFAULT '{}'::jsonb,
    PRIMARY KEY (group_name, node_id)
);

CREATE INDEX IF NOT EXISTS cluster_nodes_expiry_idx ON :"schema".cluster_nodes (group_name, expires_at);

-- The cluster event log; the store keeps the newest eventRetention rows per group.
CREATE TABLE IF NOT EXISTS :"schema".cluster_events (
    id           bigserial   PRIMARY KEY,
    group_name   text        NOT NULL,
    node_id      text        NOT NULL,
    event_type   text        NOT NULL,
    event_data   jsonb       NOT NULL DEFAULT '{}'::jsonb,
    "timestamp"  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS cluster_events_group_id_idx ON :"schema".cluster_events (group_name, id DESC);

-- Fenced registers: written only under the group's newest term (leader_lease.term), never by an older one.
CREATE TABLE IF NOT EXISTS :"schema".fenced_registers (
    group_name  text        NOT NULL,
    name        text        NOT NULL,
    term        bigint      NOT NULL,
    writer      text        NOT NULL,
    value       bytea       NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (group_name, name)
);

-- Fenced maps (the control plane's work items): same rule as the registers, per entry.
CREATE TABLE IF NOT EXISTS :"schema".fenced_maps (
    group_name  text        NOT NULL,
    map_name    text        NOT NULL,
    key         text        NOT NULL,
    term        bigint      NOT NULL,
    writer      text        NOT NULL,
    value       bytea       NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (group_name, map_name, key)
);

INSERT INTO :"schema".schema_version (version) VALUES (1) ON CONFLICT (version) DO NOTHING;

-- Baton's PostgreSQL schema, version 3: sessions, so that one process holds many groups' leases for the cost of one.
--
-- Applied after schema-v2.sql, never instead of it. PostgresStore applies every version the schema lacks, in order,
-- at start unless createSchema is false. To upgrade a version 2 schema yourself, run this file in ONE transaction:
--
--     psql -v schema=baton -1 -f schema-v3.sql "postgresql://admin@db.example:5432/app"
--
-- and grant the application's user SELECT, INSERT, UPDATE, DELETE on the two new tables (GRANT ... ON ALL TABLES IN
-- SCHEMA covers only the tables that existed when it ran). Every statement is idempotent.

SELECT pg_advisory_xact_lock(hashtext('baton schema ' || :'schema'));

-- One row per live session. id is a random UUID made by the store (never a sequence, which a restored backup would
-- hand out again). A session is alive while expires_at (database clock) is in the future; an ended session's row is
-- deleted (by close, by the acquire that takes over a lease bound to it, or by the sweep of a later open), and an id
-- without a row is an ended session: so a keep-alive never finds an ended session to extend.
CREATE TABLE IF NOT EXISTS :"schema".sessions (
    id          text        PRIMARY KEY,
    node_id     text        NOT NULL,
    -- The owner's node info, as leader_lease.leader_info holds a leader's (seed 000's ProcessInfo field names).
    node_info   jsonb       NOT NULL,
    opened_at   timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    last_seen   timestamptz NOT NULL
);

CREATE INDEX IF NOT EXISTS sessions_expiry_idx ON :"schema".sessions (expires_at);

-- The groups each session joined; a row goes with its session.
CREATE TABLE IF NOT EXISTS :"schema".session_members (
    group_name  text        NOT NULL,
    session_id  text        NOT NULL REFERENCES :"schema".sessions (id) ON DELETE CASCADE,
    joined_at   timestamptz NOT NULL,
    PRIMARY KEY (group_name, session_id)
);

CREATE INDEX IF NOT EXISTS session_members_session_idx ON :"schema".session_members (session_id);

-- The session a group's lease is bound to, or NULL for a lease with a TTL of its own (expires_at). A bound lease has
-- no expires_at of its own: it is live exactly while its session is.
ALTER TABLE :"schema".leader_lease ADD COLUMN IF NOT EXISTS holder_session text;

INSERT INTO :"schema".schema_version (version) VALUES (3) ON CONFLICT (version) DO NOTHING;

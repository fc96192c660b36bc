-- Baton's PostgreSQL schema, version 2: the leader records of serverless elections (seed 004's GMLeader).
--
-- Applied after schema-v1.sql, never instead of it. PostgresStore applies every version the schema lacks, in order,
-- at start unless createSchema is false. To upgrade a version 1 schema yourself, run this file in ONE transaction:
--
--     psql -v schema=baton -1 -f schema-v2.sql "postgresql://admin@db.example:5432/app"
--
-- and grant the application's user SELECT, INSERT, UPDATE on the new table (GRANT ... ON ALL TABLES IN SCHEMA
-- covers only the tables that existed when it ran). Every statement is idempotent.

SELECT pg_advisory_xact_lock(hashtext('baton schema ' || :'schema'));

-- One row per group: the leader a serverless (bully) election last recorded, written only by a compare-and-set on
-- the term (a higher term, or the same term by the same leader), so term never goes down.
CREATE TABLE IF NOT EXISTS :"schema".leader_records (
    group_name  text        PRIMARY KEY,
    term        bigint      NOT NULL CHECK (term >= 1),
    leader_id   text        NOT NULL,
    process_id  bigint      NOT NULL CHECK (process_id >= 1),
    address     text        NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

INSERT INTO :"schema".schema_version (version) VALUES (2) ON CONFLICT (version) DO NOTHING;

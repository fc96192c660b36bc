/**
 * Baton on PostgreSQL: a {@link dev.baton.core.store.CoordinationStore} whose leases, terms, registry, event log and
 * fenced data live in ordinary tables, so services that already run PostgreSQL get leader election without another
 * server.
 *
 * <p>Three public types make up the module:
 * <ul>
 *   <li>{@link dev.baton.postgres.PostgresStore}: the store. {@code PostgresStore.connect("postgresql://…")}, then hand
 *       it to {@code Baton.election(store)}.</li>
 *   <li>{@link dev.baton.postgres.PostgresStoreOptions}: connection, schema, pool and timeouts, validated when
 *       built.</li>
 *   <li>{@link dev.baton.postgres.PostgresFencing}: the guard for your own JDBC writes, which refuses a deposed
 *       leader's term inside your transaction.</li>
 * </ul>
 *
 * <pre>{@code
 * try (PostgresStore store = PostgresStore.connect("postgresql://app:secret@db:5432/app");
 *      Election election = Baton.election(store).group("orders-scheduler").build()) {
 *     election.addListener(event -> { ... });
 *     election.start();
 * }
 * }</pre>
 *
 * <p>Layout (seed 002's tables, keyed by group, in schema {@code baton} unless configured): {@code leader_lease}
 * (one row per group, never deleted, so terms only grow), {@code cluster_nodes}, {@code cluster_events},
 * {@code fenced_registers}, {@code fenced_maps}, {@code leader_records} (seed 004's leader record per group),
 * {@code schema_version}. The scripts that create them ship as {@code dev/baton/postgres/schema-v1.sql} and
 * {@code schema-v2.sql}, applied in order. Everything under {@code dev.baton.postgres.internal} is implementation
 * and may change without notice. See {@code docs/postgres.md}.
 */
package dev.baton.postgres;

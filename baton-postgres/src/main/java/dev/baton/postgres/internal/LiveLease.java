package dev.baton.postgres.internal;

/**
 * The one rule for whether a group's lease, a {@code leader_lease} row, is live, as SQL, so that every statement that
 * judges it (reads, renewals, releases, the registry's leader) says the same thing: the row has a holder
 * ({@code leader_id}) and its expiry is in the future, where a lease bound to a session ({@code holder_session}) has
 * its session's expiry and a lease with a TTL of its own has its own {@code expires_at}. A bound lease whose session
 * has no row (closed, or ended and swept) has no expiry and is not live: an unknown session is an ended one.
 *
 * <p>Acquire does not use this: it must also make an ended session stay ended before it takes over its lease (see
 * {@link PgLeases}).
 */
final class LiveLease {

    private LiveLease() {}

    /** When the lease row aliased {@code lease} ends, on the database's clock; NULL if it has no session any more. */
    static String expiry(Tables tables, String lease) {
        return "(CASE WHEN " + lease + ".holder_session IS NULL THEN " + lease + ".expires_at ELSE (SELECT "
                + "hs.expires_at FROM " + tables.sessions() + " hs WHERE hs.id = " + lease + ".holder_session) END)";
    }

    /** Whether the lease row aliased {@code lease} is live at the SQL timestamp {@code clock}. */
    static String live(Tables tables, String lease, String clock) {
        return "(" + lease + ".leader_id IS NOT NULL AND " + expiry(tables, lease) + " > " + clock + ")";
    }
}

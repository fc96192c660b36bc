package dev.baton.core.store;

import java.util.Optional;

/**
 * Everything a backend provides to Baton, as seven roles, each a small interface of its own: {@link #leases()},
 * the process {@link #registry()}, fenced {@link #registers()} and {@link #maps()}, the cluster {@link #events()}
 * log, the message {@link #bus()}, and a leader record per group ({@link #leaderRecords()}, for elections that keep
 * their leader in the store instead of holding a lease there).
 *
 * <p>Code that needs one role takes that role, not the whole store: the lease election takes the leases, the
 * registry and the registers; the work cluster takes the fenced maps and the bus. A wrapper that changes one role
 * (fault injection, tracing) extends {@link ForwardingStore} and overrides that role's accessor only.
 *
 * <p>Implementations: the in-memory store in {@code dev.baton.core.memory}, Redis in {@code baton-redis}, PostgreSQL
 * in {@code baton-postgres}. Each one passes the testkit's store conformance suite, role by role. A store is
 * thread-safe and shared by every election on it; each accessor returns the same object every time, and the roles
 * live as long as the store: {@link #close()} closes its connections, and every role's calls fail afterwards.
 */
public interface CoordinationStore extends AutoCloseable {

    /** The group leases the lease election runs on (DESIGN §3). */
    LeaseStore leases();

    /** The process registry: entries with a TTL measured by the store's clock. */
    RegistryStore registry();

    /** Named registers that accept writes only under the group's newest term. */
    FencedStore registers();

    /** Named maps whose writes are fenced like the registers'. */
    FencedMapStore maps();

    /** The bounded, durable cluster event log of each group. */
    EventLogStore events();

    /** Fire-and-forget messaging between processes. */
    MessageBus bus();

    /**
     * The leader record of each group, on this store's connections. Its {@code describe()} is the store's, and its
     * {@code close()} closes the whole store: a store opened only to keep leader records is closed through it.
     */
    LeaderRecordStore leaderRecords();

    /**
     * The sessions that let one process hold many groups' leases for the cost of one ({@link SessionStore}), or empty
     * if this store has none; elections on such a store keep a lease with a TTL of its own per group.
     */
    default Optional<SessionStore> sessions() {
        return java.util.Optional.empty();
    }

    /** A short description for logs and status, e.g. {@code redis://127.0.0.1:6379/0}; never contains secrets. */
    String describe();

    @Override
    void close();
}

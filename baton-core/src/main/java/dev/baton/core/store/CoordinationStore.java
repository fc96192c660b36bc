package dev.baton.core.store;

/**
 * Everything a backend provides to Baton: leases, a process registry, fenced registers and maps, an event log,
 * messaging, and a leader record per group ({@link LeaderRecordStore}, for elections that keep their leader in the
 * store instead of holding a lease there).
 *
 * <p>Implementations: the in-memory store in {@code dev.baton.core.memory}, Redis in {@code baton-redis}, PostgreSQL
 * in {@code baton-postgres}. Each one passes the testkit's store conformance suite. A store is thread-safe and shared by every election on it;
 * {@link #close()} closes its connections.
 */
public interface CoordinationStore extends LeaseStore, RegistryStore, FencedStore, FencedMapStore, EventLogStore,
        MessageBus, LeaderRecordStore, AutoCloseable {

    /** A short description for logs and status, e.g. {@code redis://127.0.0.1:6379/0}; never contains secrets. */
    String describe();

    @Override
    void close();
}

package dev.baton.core.lease;

import dev.baton.core.ElectionConfig;
import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.Lease;
import dev.baton.core.store.LeaseNotice;
import dev.baton.core.store.LeaseStore;
import dev.baton.core.store.SessionStore;
import dev.baton.core.store.Subscription;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The lease store calls of one election, each bounded by its timeout and answered on the election's scheduler
 * ({@link TimedCalls}): how {@link LeaseDriver} performs the calls a {@link LeaseMachine} step asks for; the machine
 * itself holds no store and makes no I/O.
 */
final class LeaseCalls {

    private final LeaseStore leases;
    /** The store's sessions, for elections bound to one; null for leases with a TTL of their own. */
    private final SessionStore sessions;
    private final String group;
    private final String nodeId;
    private final ElectionConfig config;
    private final TimedCalls calls;

    LeaseCalls(LeaseStore leases, SessionStore sessions, String group, String nodeId, ElectionConfig config,
            TimedCalls calls) {
        this.leases = leases;
        this.sessions = sessions;
        this.group = group;
        this.nodeId = nodeId;
        this.config = config;
        this.calls = calls;
    }

    /**
     * Asks for the lease, bound to {@code session} (or with a TTL of its own if null); {@code lateReply} gets a reply
     * that came after the timeout.
     */
    void acquire(NodeInfo candidate, SessionKeeper.Session session, BiConsumer<AcquireResult, Throwable> reply,
            Consumer<AcquireResult> lateReply) {
        calls.call("acquire", config.storeTimeout(), () -> session == null
                ? leases.acquire(group, candidate, config.leaseTtl())
                : sessions.acquire(group, session.id(), candidate), reply, lateReply);
    }

    void renew(long term, Duration timeout, BiConsumer<Boolean, Throwable> reply) {
        calls.call("renew", timeout, () -> leases.renew(group, nodeId, term, config.leaseTtl()), reply);
    }

    /** Releases the lease of {@code term}, bound to {@code session} (or with a TTL of its own if null). */
    void release(long term, SessionKeeper.Session session, BiConsumer<Boolean, Throwable> reply) {
        calls.call("release", config.storeTimeout(), () -> session == null
                ? leases.release(group, nodeId, term)
                : sessions.release(group, session.id(), term), reply);
    }

    /** Reads the lease as it stands: how a leader bound to a session checks a notice of a newer term. */
    void read(BiConsumer<Optional<Lease>, Throwable> reply) {
        calls.call("read", config.storeTimeout(), () -> leases.read(group), reply);
    }

    /** Push notices of the group's lease; {@code listener} runs on the store's thread. */
    Subscription watch(Consumer<LeaseNotice> listener) {
        return leases.watch(group, listener);
    }
}

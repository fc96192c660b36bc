package dev.baton.core.lease;

import dev.baton.core.ElectionConfig;
import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.LeaseNotice;
import dev.baton.core.store.LeaseStore;
import dev.baton.core.store.Subscription;
import java.time.Duration;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The lease store calls of one election, each bounded by its timeout and answered on the election's scheduler
 * ({@link TimedCalls}): the only way {@link LeaseMachine} reaches the store, so the machine itself holds no store and
 * makes no I/O.
 */
final class LeaseCalls {

    private final LeaseStore leases;
    private final String group;
    private final String nodeId;
    private final ElectionConfig config;
    private final TimedCalls calls;

    LeaseCalls(LeaseStore leases, String group, String nodeId, ElectionConfig config, TimedCalls calls) {
        this.leases = leases;
        this.group = group;
        this.nodeId = nodeId;
        this.config = config;
        this.calls = calls;
    }

    /** Asks for the lease; {@code lateReply} gets a reply that came after the timeout. */
    void acquire(NodeInfo candidate, BiConsumer<AcquireResult, Throwable> reply, Consumer<AcquireResult> lateReply) {
        calls.call("acquire", config.storeTimeout(), () -> leases.acquire(group, candidate, config.leaseTtl()), reply,
                lateReply);
    }

    void renew(long term, Duration timeout, BiConsumer<Boolean, Throwable> reply) {
        calls.call("renew", timeout, () -> leases.renew(group, nodeId, term, config.leaseTtl()), reply);
    }

    void release(long term, BiConsumer<Boolean, Throwable> reply) {
        calls.call("release", config.storeTimeout(), () -> leases.release(group, nodeId, term), reply);
    }

    /** Push notices of the group's lease; {@code listener} runs on the store's thread. */
    Subscription watch(Consumer<LeaseNotice> listener) {
        return leases.watch(group, listener);
    }
}

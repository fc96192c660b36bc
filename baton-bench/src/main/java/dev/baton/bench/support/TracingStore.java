package dev.baton.bench.support;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.ForwardingStore;
import dev.baton.core.store.Lease;
import dev.baton.core.store.LeaseNotice;
import dev.baton.core.store.LeaseStore;
import dev.baton.core.store.Subscription;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A pass-through {@link CoordinationStore} that notes, on {@link System#nanoTime()}, the moments of a handover seen
 * from the store boundary: when the engine called {@code release}, when a release notice reached the store's
 * listener (on the store's I/O thread), when the engine sent the {@code acquire} that was granted, and when its reply
 * arrived; a {@link #onRenewed renewal listener} hears each renewal the store granted, with when it was sent and
 * answered. It also tells whether the election's lease watch is subscribed yet. The handover and failover scenarios
 * use these to split Baton's latency into phases; it costs a few {@code nanoTime} reads per call and changes nothing
 * else.
 */
public final class TracingStore extends ForwardingStore {

    private final LeaseStore leases = new TracingLeases();
    private volatile long releaseCalled;
    private volatile long releaseNoticed;
    private volatile long acquireCalled;
    private volatile long acquireGranted;
    private volatile Subscription leaseWatch;
    private volatile RenewalListener renewalListener = (sent, granted) -> { };

    public TracingStore(CoordinationStore delegate) {
        super(delegate);
    }

    public long releaseCalled() {
        return releaseCalled;
    }

    public long releaseNoticed() {
        return releaseNoticed;
    }

    public long acquireCalled() {
        return acquireCalled;
    }

    public long acquireGranted() {
        return acquireGranted;
    }

    /**
     * Tells {@code listener} of every renewal the store granted, on the thread that completed it (the store's),
     * replacing any listener set before.
     */
    public void onRenewed(RenewalListener listener) {
        renewalListener = listener;
    }

    /** Hears a granted renewal: when the engine sent it and when the store's reply arrived, on {@code nanoTime}. */
    @FunctionalInterface
    public interface RenewalListener {

        /** Called once per granted renewal. */
        void renewed(long sentNanos, long grantedNanos);
    }

    /** Completes once the election's lease watch is subscribed (so this contender will hear the next release). */
    public CompletableFuture<Void> watching() {
        Subscription watch = leaseWatch;
        return watch == null ? CompletableFuture.failedFuture(new IllegalStateException("election is not watching"))
                : watch.ready();
    }

    /** The only role this wrapper changes; the others are the delegate's own. */
    @Override
    public LeaseStore leases() {
        return leases;
    }

    /** The delegate's leases, with the handover moments noted. */
    private final class TracingLeases implements LeaseStore {

        @Override
        public CompletableFuture<AcquireResult> acquire(String group, NodeInfo candidate, Duration ttl) {
            long called = System.nanoTime();
            return delegate().leases().acquire(group, candidate, ttl).whenComplete((result, error) -> {
                if (result instanceof AcquireResult.Granted) {
                    long granted = System.nanoTime();
                    acquireCalled = called;
                    acquireGranted = granted;
                }
            });
        }

        @Override
        public CompletableFuture<Boolean> release(String group, String nodeId, long term) {
            releaseCalled = System.nanoTime();
            return delegate().leases().release(group, nodeId, term);
        }

        @Override
        public Subscription watch(String group, Consumer<LeaseNotice> listener) {
            Subscription watch = delegate().leases().watch(group, notice -> {
                if (notice.kind() == LeaseNotice.Kind.RELEASED) {
                    releaseNoticed = System.nanoTime();
                }
                listener.accept(notice);
            });
            leaseWatch = watch;
            return watch;
        }

        @Override
        public CompletableFuture<Boolean> renew(String group, String nodeId, long term, Duration ttl) {
            long sent = System.nanoTime();
            return delegate().leases().renew(group, nodeId, term, ttl).whenComplete((granted, error) -> {
                if (Boolean.TRUE.equals(granted)) {
                    renewalListener.renewed(sent, System.nanoTime());
                }
            });
        }

        @Override
        public CompletableFuture<Optional<Lease>> read(String group) {
            return delegate().leases().read(group);
        }
    }
}

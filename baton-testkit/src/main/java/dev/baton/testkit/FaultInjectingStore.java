package dev.baton.testkit;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.ClusterEvent;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.FencedMapWrite;
import dev.baton.core.store.FencedValue;
import dev.baton.core.store.FencedWriteResult;
import dev.baton.core.store.LeaderRecord;
import dev.baton.core.store.LeaderRecordWrite;
import dev.baton.core.store.Lease;
import dev.baton.core.store.LeaseNotice;
import dev.baton.core.store.MemberNotice;
import dev.baton.core.store.StoreException;
import dev.baton.core.store.Subscription;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One client's view of a store, with faults switched on and off by the test: {@link #hang()} (calls never answer and
 * notices stop, as when the server is paused or the network is cut), {@link #fail()} (calls fail at once, as when the
 * server is down) and {@link #heal()}.
 *
 * <p>Calls made while hung are not lost: on {@link #heal()} they reach the store late, the way commands queued to a
 * paused Redis run when it resumes. Their callers have long since timed out, so a late renewal can extend a lease its
 * holder already gave up: exactly the situation the election must stay safe in.
 */
public final class FaultInjectingStore implements CoordinationStore {

    private enum Mode { NORMAL, HANG, FAIL }

    private final CoordinationStore delegate;
    private final List<Runnable> delayed = new ArrayList<>();
    private final List<Consumer<LeaseNotice>> leaseWatchers = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile Mode mode = Mode.NORMAL;
    private volatile boolean replayOnHeal = true;

    public FaultInjectingStore(CoordinationStore delegate) {
        this.delegate = delegate;
    }

    /** From now on calls do not answer and notices are not delivered. */
    public void hang() {
        mode = Mode.HANG;
    }

    /** From now on calls fail at once with a {@link StoreException}. */
    public void fail() {
        mode = Mode.FAIL;
    }

    /** Whether calls made while hung are executed on {@link #heal()} (default) or dropped. */
    public void replayOnHeal(boolean replay) {
        this.replayOnHeal = replay;
    }

    /** Back to normal; calls made while hung now reach the store (unless replay is off). */
    public void heal() {
        mode = Mode.NORMAL;
        List<Runnable> late;
        synchronized (delayed) {
            late = new ArrayList<>(delayed);
            delayed.clear();
        }
        if (replayOnHeal) {
            late.forEach(Runnable::run);
        }
    }

    private <T> CompletableFuture<T> call(String operation, Supplier<CompletableFuture<T>> action) {
        switch (mode) {
            case FAIL:
                return CompletableFuture.failedFuture(new StoreException(operation + " failed: store unreachable"));
            case HANG: {
                CompletableFuture<T> never = new CompletableFuture<>();
                synchronized (delayed) {
                    delayed.add(() -> action.get().whenComplete((value, error) -> {
                        if (error != null) {
                            never.completeExceptionally(error);
                        } else {
                            never.complete(value);
                        }
                    }));
                }
                return never;
            }
            default:
                return action.get();
        }
    }

    private <T> Consumer<T> gated(Consumer<T> listener) {
        return notice -> {
            if (mode == Mode.NORMAL) {
                listener.accept(notice);
            }
        };
    }

    @Override
    public CompletableFuture<AcquireResult> acquire(String group, NodeInfo candidate, Duration ttl) {
        return call("acquire", () -> delegate.acquire(group, candidate, ttl));
    }

    @Override
    public CompletableFuture<Boolean> renew(String group, String nodeId, long term, Duration ttl) {
        return call("renew", () -> delegate.renew(group, nodeId, term, ttl));
    }

    @Override
    public CompletableFuture<Boolean> release(String group, String nodeId, long term) {
        return call("release", () -> delegate.release(group, nodeId, term));
    }

    @Override
    public CompletableFuture<Optional<Lease>> read(String group) {
        return call("read", () -> delegate.read(group));
    }

    @Override
    public Subscription watch(String group, Consumer<LeaseNotice> listener) {
        leaseWatchers.add(listener);
        Subscription subscription = delegate.watch(group, gated(listener));
        return new Subscription() {
            @Override
            public CompletableFuture<Void> ready() {
                return subscription.ready();
            }

            @Override
            public void close() {
                leaseWatchers.remove(listener);
                subscription.close();
            }
        };
    }

    /**
     * Delivers {@code notice} to this client's lease watchers now, as pub/sub does with a notice that was delayed or
     * arrives out of order: the store's state is not touched.
     */
    public void deliverLate(LeaseNotice notice) {
        leaseWatchers.forEach(watcher -> watcher.accept(notice));
    }

    @Override
    public CompletableFuture<Void> register(String group, NodeInfo node, Duration ttl) {
        return call("register", () -> delegate.register(group, node, ttl));
    }

    @Override
    public CompletableFuture<Boolean> heartbeat(String group, String nodeId, Duration ttl) {
        return call("heartbeat", () -> delegate.heartbeat(group, nodeId, ttl));
    }

    @Override
    public CompletableFuture<Boolean> unregister(String group, String nodeId) {
        return call("unregister", () -> delegate.unregister(group, nodeId));
    }

    @Override
    public CompletableFuture<List<NodeInfo>> members(String group) {
        return call("members", () -> delegate.members(group));
    }

    @Override
    public CompletableFuture<Optional<NodeInfo>> member(String group, String nodeId) {
        return call("member", () -> delegate.member(group, nodeId));
    }

    @Override
    public CompletableFuture<Optional<NodeInfo>> leaderInfo(String group) {
        return call("leaderInfo", () -> delegate.leaderInfo(group));
    }

    @Override
    public CompletableFuture<List<String>> sweepExpired(String group) {
        return call("sweepExpired", () -> delegate.sweepExpired(group));
    }

    @Override
    public Subscription watchMembers(String group, Consumer<MemberNotice> listener) {
        return delegate.watchMembers(group, gated(listener));
    }

    @Override
    public CompletableFuture<FencedWriteResult> fencedWrite(String group, String register, String nodeId, long term,
            byte[] value) {
        return call("fencedWrite", () -> delegate.fencedWrite(group, register, nodeId, term, value));
    }

    @Override
    public CompletableFuture<Optional<FencedValue>> fencedRead(String group, String register) {
        return call("fencedRead", () -> delegate.fencedRead(group, register));
    }

    @Override
    public CompletableFuture<FencedMapWrite> fencedPut(String group, String map, String key, String nodeId, long term,
            byte[] value) {
        return call("fencedPut", () -> delegate.fencedPut(group, map, key, nodeId, term, value));
    }

    @Override
    public CompletableFuture<FencedMapWrite> fencedRemove(String group, String map, String key, String nodeId,
            long term) {
        return call("fencedRemove", () -> delegate.fencedRemove(group, map, key, nodeId, term));
    }

    @Override
    public CompletableFuture<Optional<FencedValue>> mapGet(String group, String map, String key) {
        return call("mapGet", () -> delegate.mapGet(group, map, key));
    }

    @Override
    public CompletableFuture<SortedMap<String, FencedValue>> mapEntries(String group, String map) {
        return call("mapEntries", () -> delegate.mapEntries(group, map));
    }

    @Override
    public CompletableFuture<Void> appendEvent(String group, String nodeId, String type, Map<String, String> data) {
        return call("appendEvent", () -> delegate.appendEvent(group, nodeId, type, data));
    }

    @Override
    public CompletableFuture<List<ClusterEvent>> recentEvents(String group, int limit) {
        return call("recentEvents", () -> delegate.recentEvents(group, limit));
    }

    @Override
    public CompletableFuture<Optional<LeaderRecord>> readLeader(String group) {
        return call("readLeader", () -> delegate.readLeader(group));
    }

    /** While hung, the write is held and reaches the store on {@link #heal()}: a stale leader's late write. */
    @Override
    public CompletableFuture<LeaderRecordWrite> writeLeader(LeaderRecord record) {
        return call("writeLeader", () -> delegate.writeLeader(record));
    }

    @Override
    public CompletableFuture<Long> publish(String channel, byte[] message) {
        return call("publish", () -> delegate.publish(channel, message));
    }

    @Override
    public Subscription subscribe(String channel, Consumer<byte[]> handler) {
        return delegate.subscribe(channel, gated(handler));
    }

    @Override
    public String describe() {
        return "faulty(" + delegate.describe() + ")";
    }

    /** Does not close the shared delegate: other clients may still use it. */
    @Override
    public void close() {
        mode = Mode.FAIL;
    }
}

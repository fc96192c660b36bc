package dev.baton.bench.support;

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
import dev.baton.core.store.Subscription;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A pass-through {@link CoordinationStore} that notes, on {@link System#nanoTime()}, the moments of a handover seen
 * from the store boundary: when the engine called {@code release}, when a release notice reached the store's
 * listener (on the store's I/O thread), when the engine sent the {@code acquire} that was granted, and when its reply
 * arrived. It also tells whether the election's lease watch is subscribed yet. The handover and failover scenarios
 * use these to split Baton's latency into phases; it costs a few {@code nanoTime} reads per call and changes nothing
 * else.
 */
public final class TracingStore implements CoordinationStore {

    private final CoordinationStore delegate;
    private volatile long releaseCalled;
    private volatile long releaseNoticed;
    private volatile long acquireCalled;
    private volatile long acquireGranted;
    private volatile Subscription leaseWatch;

    public TracingStore(CoordinationStore delegate) {
        this.delegate = delegate;
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

    /** Completes once the election's lease watch is subscribed (so this contender will hear the next release). */
    public CompletableFuture<Void> watching() {
        Subscription watch = leaseWatch;
        return watch == null ? CompletableFuture.failedFuture(new IllegalStateException("election is not watching"))
                : watch.ready();
    }

    @Override
    public CompletableFuture<AcquireResult> acquire(String group, NodeInfo candidate, Duration ttl) {
        long called = System.nanoTime();
        return delegate.acquire(group, candidate, ttl).whenComplete((result, error) -> {
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
        return delegate.release(group, nodeId, term);
    }

    @Override
    public Subscription watch(String group, Consumer<LeaseNotice> listener) {
        Subscription watch = delegate.watch(group, notice -> {
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
        return delegate.renew(group, nodeId, term, ttl);
    }

    @Override
    public CompletableFuture<Optional<Lease>> read(String group) {
        return delegate.read(group);
    }

    @Override
    public CompletableFuture<Void> register(String group, NodeInfo node, Duration ttl) {
        return delegate.register(group, node, ttl);
    }

    @Override
    public CompletableFuture<Boolean> heartbeat(String group, String nodeId, Duration ttl) {
        return delegate.heartbeat(group, nodeId, ttl);
    }

    @Override
    public CompletableFuture<Boolean> unregister(String group, String nodeId) {
        return delegate.unregister(group, nodeId);
    }

    @Override
    public CompletableFuture<List<NodeInfo>> members(String group) {
        return delegate.members(group);
    }

    @Override
    public CompletableFuture<Optional<NodeInfo>> member(String group, String nodeId) {
        return delegate.member(group, nodeId);
    }

    @Override
    public CompletableFuture<Optional<NodeInfo>> leaderInfo(String group) {
        return delegate.leaderInfo(group);
    }

    @Override
    public CompletableFuture<List<String>> sweepExpired(String group) {
        return delegate.sweepExpired(group);
    }

    @Override
    public Subscription watchMembers(String group, Consumer<MemberNotice> listener) {
        return delegate.watchMembers(group, listener);
    }

    @Override
    public CompletableFuture<FencedWriteResult> fencedWrite(String group, String register, String nodeId, long term,
            byte[] value) {
        return delegate.fencedWrite(group, register, nodeId, term, value);
    }

    @Override
    public CompletableFuture<Optional<FencedValue>> fencedRead(String group, String register) {
        return delegate.fencedRead(group, register);
    }

    @Override
    public CompletableFuture<FencedMapWrite> fencedPut(String group, String map, String key, String nodeId, long term,
            byte[] value) {
        return delegate.fencedPut(group, map, key, nodeId, term, value);
    }

    @Override
    public CompletableFuture<FencedMapWrite> fencedRemove(String group, String map, String key, String nodeId,
            long term) {
        return delegate.fencedRemove(group, map, key, nodeId, term);
    }

    @Override
    public CompletableFuture<Optional<FencedValue>> mapGet(String group, String map, String key) {
        return delegate.mapGet(group, map, key);
    }

    @Override
    public CompletableFuture<SortedMap<String, FencedValue>> mapEntries(String group, String map) {
        return delegate.mapEntries(group, map);
    }

    @Override
    public CompletableFuture<Void> appendEvent(String group, String nodeId, String type, Map<String, String> data) {
        return delegate.appendEvent(group, nodeId, type, data);
    }

    @Override
    public CompletableFuture<List<ClusterEvent>> recentEvents(String group, int limit) {
        return delegate.recentEvents(group, limit);
    }

    @Override
    public CompletableFuture<Optional<LeaderRecord>> readLeader(String group) {
        return delegate.readLeader(group);
    }

    @Override
    public CompletableFuture<LeaderRecordWrite> writeLeader(LeaderRecord record) {
        return delegate.writeLeader(record);
    }

    @Override
    public CompletableFuture<Long> publish(String channel, byte[] message) {
        return delegate.publish(channel, message);
    }

    @Override
    public Subscription subscribe(String channel, Consumer<byte[]> handler) {
        return delegate.subscribe(channel, handler);
    }

    @Override
    public String describe() {
        return delegate.describe();
    }

    @Override
    public void close() {
        delegate.close();
    }
}

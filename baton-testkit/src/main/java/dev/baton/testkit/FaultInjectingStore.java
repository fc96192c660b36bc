package dev.baton.testkit;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.ClusterEvent;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.EventLogStore;
import dev.baton.core.store.FencedMapStore;
import dev.baton.core.store.FencedMapWrite;
import dev.baton.core.store.FencedStore;
import dev.baton.core.store.FencedValue;
import dev.baton.core.store.FencedWriteResult;
import dev.baton.core.store.LeaderRecord;
import dev.baton.core.store.LeaderRecordStore;
import dev.baton.core.store.LeaderRecordWrite;
import dev.baton.core.store.Lease;
import dev.baton.core.store.LeaseNotice;
import dev.baton.core.store.LeaseStore;
import dev.baton.core.store.MemberNotice;
import dev.baton.core.store.MessageBus;
import dev.baton.core.store.RegistryStore;
import dev.baton.core.store.SessionStore;
import dev.baton.core.store.StoreException;
import dev.baton.core.store.Subscription;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
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
 *
 * <p>{@link #holdNext(String)} is the straggler: one chosen call is held back while later calls pass, and reaches the
 * store only on {@link #deliverHeld()}, after its caller gave up on it and went on.
 *
 * <p>A fault hits the whole connection, so every role is wrapped (one small class per role); a wrapper that changes
 * one role only extends {@link dev.baton.core.store.ForwardingStore} instead.
 */
public final class FaultInjectingStore implements CoordinationStore {

    private enum Mode { NORMAL, HANG, FAIL }

    private final CoordinationStore delegate;
    private final List<Runnable> delayed = new ArrayList<>();
    private final List<Consumer<LeaseNotice>> leaseWatchers = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile Mode mode = Mode.NORMAL;
    private volatile boolean replayOnHeal = true;
    /** The operation whose next call is to be held back, or null. Guarded by {@link #delayed}. */
    private String holdOperation;
    /** Whether that call runs at the store at once and only its reply is held. Guarded by {@link #delayed}. */
    private boolean holdReplyOnly;
    /** Calls held back by {@link #holdNext}, oldest first, waiting for {@link #deliverHeld}. Guarded by {@link #delayed}. */
    private final ArrayDeque<Runnable> held = new ArrayDeque<>();
    private final LeaseStore leasesRole = new LeasesRole();
    private final RegistryStore registryRole = new RegistryRole();
    private final FencedStore registersRole = new RegistersRole();
    private final FencedMapStore mapsRole = new MapsRole();
    private final EventLogStore eventsRole = new EventsRole();
    private final MessageBus busRole = new BusRole();
    private final LeaderRecordStore leaderRecordsRole = new LeaderRecordsRole();
    private final Optional<SessionStore> sessionsRole;

    public FaultInjectingStore(CoordinationStore delegate) {
        this.delegate = delegate;
        this.sessionsRole = delegate.sessions().map(sessions -> new SessionsRole());
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

    /**
     * Holds back the next call of {@code operation} ({@code acquire}, {@code renew}, {@code release}, {@code read},
     * ...) made while the link is otherwise normal: it neither reaches the store nor answers, while every later call
     * passes, until {@link #deliverHeld()}. The way a request stuck in one pooled connection, or a task queued behind
     * a slow one, runs at the store long after its caller timed out and its later requests overtook it.
     */
    public void holdNext(String operation) {
        hold(operation, false);
    }

    /**
     * Like {@link #holdNext}, but the call runs at the store at once and only its reply is held until
     * {@link #deliverHeld()}: a reply delayed on one connection while replies on others overtake it.
     */
    public void holdNextReply(String operation) {
        hold(operation, true);
    }

    private void hold(String operation, boolean replyOnly) {
        synchronized (delayed) {
            holdOperation = Objects.requireNonNull(operation, "operation");
            holdReplyOnly = replyOnly;
        }
    }

    /**
     * Runs the oldest call held back by {@link #holdNext} at the store now (or, after {@link #holdNextReply}, hands
     * over the reply it got then) and answers its caller; returns false if no call was held.
     */
    public boolean deliverHeld() {
        Runnable late;
        synchronized (delayed) {
            late = held.pollFirst();
        }
        if (late == null) {
            return false;
        }
        late.run();
        return true;
    }

    private <T> CompletableFuture<T> call(String operation, Supplier<CompletableFuture<T>> action) {
        if (mode == Mode.NORMAL) {
            CompletableFuture<T> held = holdIfChosen(operation, action);
            if (held != null) {
                return held;
            }
        }
        switch (mode) {
            case FAIL:
                return CompletableFuture.failedFuture(new StoreException(operation + " failed: store unreachable"));
            case HANG: {
                CompletableFuture<T> never = new CompletableFuture<>();
                synchronized (delayed) {
                    delayed.add(() -> forward(action.get(), never));
                }
                return never;
            }
            default:
                return action.get();
        }
    }

    /** Holds this call back if it is the one {@link #holdNext} or {@link #holdNextReply} chose; null otherwise. */
    private <T> CompletableFuture<T> holdIfChosen(String operation, Supplier<CompletableFuture<T>> action) {
        boolean replyOnly;
        synchronized (delayed) {
            if (!operation.equals(holdOperation)) {
                return null;
            }
            holdOperation = null;
            replyOnly = holdReplyOnly;
        }
        CompletableFuture<T> caller = new CompletableFuture<>();
        // The reply-only hold runs the call now, outside the lock (the store may deliver notices on this thread).
        CompletableFuture<T> reply = replyOnly ? action.get() : null;
        synchronized (delayed) {
            held.addLast(replyOnly ? () -> forward(reply, caller) : () -> forward(action.get(), caller));
        }
        return caller;
    }

    private static <T> void forward(CompletableFuture<T> reply, CompletableFuture<T> caller) {
        reply.whenComplete((value, error) -> {
            if (error != null) {
                caller.completeExceptionally(error);
            } else {
                caller.complete(value);
            }
        });
    }

    private <T> Consumer<T> gated(Consumer<T> listener) {
        return notice -> {
            if (mode == Mode.NORMAL) {
                listener.accept(notice);
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
    public LeaseStore leases() {
        return leasesRole;
    }

    @Override
    public RegistryStore registry() {
        return registryRole;
    }

    @Override
    public FencedStore registers() {
        return registersRole;
    }

    @Override
    public FencedMapStore maps() {
        return mapsRole;
    }

    @Override
    public EventLogStore events() {
        return eventsRole;
    }

    @Override
    public MessageBus bus() {
        return busRole;
    }

    @Override
    public LeaderRecordStore leaderRecords() {
        return leaderRecordsRole;
    }

    /** The delegate's sessions, through the faults, if it offers them. */
    @Override
    public Optional<SessionStore> sessions() {
        return sessionsRole;
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

    /** The sessions role, through the faults; each call is named by its method ("keepAlive", "acquireInSession"). */
    private final class SessionsRole implements SessionStore {

        private SessionStore sessions() {
            return delegate.sessions().orElseThrow();
        }

        @Override
        public CompletableFuture<String> open(NodeInfo owner, Duration ttl) {
            return call("open", () -> sessions().open(owner, ttl));
        }

        @Override
        public CompletableFuture<Boolean> keepAlive(String session, Duration ttl) {
            return call("keepAlive", () -> sessions().keepAlive(session, ttl));
        }

        @Override
        public CompletableFuture<Boolean> close(String session) {
            return call("closeSession", () -> sessions().close(session));
        }

        @Override
        public CompletableFuture<Map<String, Duration>> remaining(Set<String> ids) {
            return call("remaining", () -> sessions().remaining(ids));
        }

        @Override
        public CompletableFuture<AcquireResult> acquire(String group, String session, NodeInfo candidate) {
            return call("acquireInSession", () -> sessions().acquire(group, session, candidate));
        }

        @Override
        public CompletableFuture<Boolean> release(String group, String session, long term) {
            return call("releaseInSession", () -> sessions().release(group, session, term));
        }

        @Override
        public CompletableFuture<Void> join(String group, String session) {
            return call("join", () -> sessions().join(group, session));
        }

        @Override
        public CompletableFuture<Boolean> leave(String group, String session) {
            return call("leave", () -> sessions().leave(group, session));
        }

        @Override
        public CompletableFuture<Map<String, NodeInfo>> members(String group) {
            return call("sessionMembers", () -> sessions().members(group));
        }
    }

    /** The leases role, through the faults. */
    private final class LeasesRole implements LeaseStore {

        @Override
        public CompletableFuture<AcquireResult> acquire(String group, NodeInfo candidate, Duration ttl) {
            return call("acquire", () -> delegate.leases().acquire(group, candidate, ttl));
        }

        @Override
        public CompletableFuture<Boolean> renew(String group, String nodeId, long term, Duration ttl) {
            return call("renew", () -> delegate.leases().renew(group, nodeId, term, ttl));
        }

        @Override
        public CompletableFuture<Boolean> release(String group, String nodeId, long term) {
            return call("release", () -> delegate.leases().release(group, nodeId, term));
        }

        @Override
        public CompletableFuture<Optional<Lease>> read(String group) {
            return call("read", () -> delegate.leases().read(group));
        }

        @Override
        public Subscription watch(String group, Consumer<LeaseNotice> listener) {
            leaseWatchers.add(listener);
            Subscription subscription = delegate.leases().watch(group, gated(listener));
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
    }

    /** The registry role, through the faults. */
    private final class RegistryRole implements RegistryStore {

        @Override
        public CompletableFuture<Void> register(String group, NodeInfo node, Duration ttl) {
            return call("register", () -> delegate.registry().register(group, node, ttl));
        }

        @Override
        public CompletableFuture<Boolean> heartbeat(String group, String nodeId, Duration ttl) {
            return call("heartbeat", () -> delegate.registry().heartbeat(group, nodeId, ttl));
        }

        @Override
        public CompletableFuture<Boolean> unregister(String group, String nodeId) {
            return call("unregister", () -> delegate.registry().unregister(group, nodeId));
        }

        @Override
        public CompletableFuture<List<NodeInfo>> members(String group) {
            return call("members", () -> delegate.registry().members(group));
        }

        @Override
        public CompletableFuture<Optional<NodeInfo>> member(String group, String nodeId) {
            return call("member", () -> delegate.registry().member(group, nodeId));
        }

        @Override
        public CompletableFuture<Optional<NodeInfo>> leaderInfo(String group) {
            return call("leaderInfo", () -> delegate.registry().leaderInfo(group));
        }

        @Override
        public CompletableFuture<List<String>> sweepExpired(String group) {
            return call("sweepExpired", () -> delegate.registry().sweepExpired(group));
        }

        @Override
        public Subscription watchMembers(String group, Consumer<MemberNotice> listener) {
            return delegate.registry().watchMembers(group, gated(listener));
        }
    }

    /** The registers role, through the faults. */
    private final class RegistersRole implements FencedStore {

        @Override
        public CompletableFuture<FencedWriteResult> fencedWrite(String group, String register, String nodeId, long term,
                byte[] value) {
            return call("fencedWrite", () -> delegate.registers().fencedWrite(group, register, nodeId, term, value));
        }

        @Override
        public CompletableFuture<Optional<FencedValue>> fencedRead(String group, String register) {
            return call("fencedRead", () -> delegate.registers().fencedRead(group, register));
        }
    }

    /** The maps role, through the faults. */
    private final class MapsRole implements FencedMapStore {

        @Override
        public CompletableFuture<FencedMapWrite> fencedPut(String group, String map, String key, String nodeId,
                long term,
                byte[] value) {
            return call("fencedPut", () -> delegate.maps().fencedPut(group, map, key, nodeId, term, value));
        }

        @Override
        public CompletableFuture<FencedMapWrite> fencedRemove(String group, String map, String key, String nodeId,
                long term) {
            return call("fencedRemove", () -> delegate.maps().fencedRemove(group, map, key, nodeId, term));
        }

        @Override
        public CompletableFuture<Optional<FencedValue>> mapGet(String group, String map, String key) {
            return call("mapGet", () -> delegate.maps().mapGet(group, map, key));
        }

        @Override
        public CompletableFuture<SortedMap<String, FencedValue>> mapEntries(String group, String map) {
            return call("mapEntries", () -> delegate.maps().mapEntries(group, map));
        }
    }

    /** The events role, through the faults. */
    private final class EventsRole implements EventLogStore {

        @Override
        public CompletableFuture<Void> appendEvent(String group, String nodeId, String type, Map<String, String> data) {
            return call("appendEvent", () -> delegate.events().appendEvent(group, nodeId, type, data));
        }

        @Override
        public CompletableFuture<List<ClusterEvent>> recentEvents(String group, int limit) {
            return call("recentEvents", () -> delegate.events().recentEvents(group, limit));
        }
    }

    /** The bus role, through the faults. */
    private final class BusRole implements MessageBus {

        @Override
        public CompletableFuture<Long> publish(String channel, byte[] message) {
            return call("publish", () -> delegate.bus().publish(channel, message));
        }

        @Override
        public Subscription subscribe(String channel, Consumer<byte[]> handler) {
            return delegate.bus().subscribe(channel, gated(handler));
        }
    }

    /** The leaderRecords role, through the faults. */
    private final class LeaderRecordsRole implements LeaderRecordStore {

        @Override
        public CompletableFuture<Optional<LeaderRecord>> readLeader(String group) {
            return call("readLeader", () -> delegate.leaderRecords().readLeader(group));
        }

        /** While hung, the write is held and reaches the store on {@link #heal()}: a stale leader's late write. */
        @Override
        public CompletableFuture<LeaderRecordWrite> writeLeader(LeaderRecord record) {
            return call("writeLeader", () -> delegate.leaderRecords().writeLeader(record));
        }

        @Override
        public String describe() {
            return FaultInjectingStore.this.describe();
        }

        @Override
        public void close() {
            FaultInjectingStore.this.close();
        }
    }
}

package dev.baton.peer.replica;

import dev.baton.core.Leadership;
import dev.baton.core.store.FencedMapStore;
import dev.baton.core.store.FencedMapWrite;
import dev.baton.core.store.FencedValue;
import dev.baton.core.store.MessageBus;
import dev.baton.core.store.StoreTimeoutException;
import dev.baton.core.store.Subscription;
import dev.baton.core.time.Clock;
import dev.baton.core.time.ExecutorScheduler;
import dev.baton.core.time.Scheduler;
import dev.baton.peer.replica.ReplicaMessage.Publish;
import dev.baton.peer.replica.ReplicaMessage.Push;
import dev.baton.peer.replica.ReplicaMessage.PushAck;
import dev.baton.peer.replica.ReplicaMessage.RecoveryAnswer;
import dev.baton.peer.replica.ReplicaMessage.RecoveryQuery;
import dev.baton.peer.replica.ReplicaMessage.Snapshot;
import dev.baton.peer.replica.ReplicaMessage.SnapshotRequest;
import dev.baton.peer.replica.ReplicaMessage.Sync;
import dev.baton.peer.replica.ReplicaMessage.Write;
import dev.baton.peer.replica.ReplicaMessage.WriteAck;
import dev.baton.peer.transport.JacksonMessageCodec;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work cluster's fenced maps and message bus for a serverless group (the seed-node quorum protocol or the bully
 * election), with no Redis or PostgreSQL: every member keeps a replica of the maps, and the group's leader replicates
 * its writes to them under its term, over a {@link Transport} of its own.
 *
 * <p><b>Fencing.</b> {@link #fencedPut}/{@link #fencedRemove} under {@code term} are applied only while this member's
 * election leads in exactly {@code term} (and its leadership is within its local deadline); otherwise they are
 * refused with the newest term known here, as a store's fenced maps refuse them. Every replica also remembers the
 * newest term it has seen and refuses writes of an older one, so a deposed leader's late writes are refused by the
 * replicas too. A replica also keeps each term for the leader that brought it its state: should two members lead the
 * same term (a bully group whose nodes issue their own terms), the second is refused.
 *
 * <p><b>Acknowledged means held by a majority.</b> The leader numbers its writes, applies each one locally, sends it
 * to every member and completes the write once a majority holds it ({@link ReplicaGroup#majority}: of the configured
 * cluster size for the quorum protocol; of the members known now for the bully election, which promises less). A
 * write that reaches fewer members before the write timeout fails with a {@link StoreTimeoutException}: its outcome is
 * unknown, as with a store that timed out.
 *
 * <p><b>A new leader catches up first.</b> In a new term the leader gathers the state of a majority of members that
 * hold one (entries with their versions, removals included), keeps per key the newest version, pushes the merged
 * state to a majority, and only then serves reads and writes: its reads and writes wait for that, so a work cluster's
 * leader never plans from an older state than the group acknowledged. Any two majorities share a member, and that
 * member refuses the old term from the moment it answered the new leader, so every acknowledged write is in the
 * merged state.
 *
 * <p><b>A member that started empty does not vote.</b> The replicas live in memory, so every start is empty, and a
 * member cannot tell the group's first start from a restart that lost writes it had acknowledged. Until a leader has
 * pushed it the whole state, its answer to a catch-up is no vote and it acknowledges no write. Before it takes a
 * state it asks N - M + 1 other members ({@link ReplicaGroup#size} N, majority M) for the newest term they have seen
 * and refuses anything older, so a deposed leader cannot give it an old state. A leader whose catch-up finds fewer
 * than a majority holding a state waits for more; once every one of the N members has answered, no one else can hold
 * anything and it starts from what they hold: so a group's first start (everyone empty) forms its state once every
 * member is up. Assumption, as for the quorum protocol's votes kept in memory: members come back empty one at a time
 * (a member that restarted holds the state again before another one restarts).
 *
 * <p><b>Reads are not fenced.</b> On a member that does not lead, reads answer from its own replica, which may lag the
 * leader's by the writes in flight (as a store's reads may lag a leader's writes). A member that started empty and
 * holds no state yet does not answer from its empty replica, which would show every acknowledged entry as missing:
 * its reads (and those it took while it led, if its term ended before it caught up) wait until a leader pushed it the
 * state, and fail with a {@link StoreTimeoutException} if none did within
 * the write timeout.
 *
 * <p><b>Limits.</b> A catch-up sends the whole state in one message, so it must fit the transport's frame limit
 * (give the store's transport a generous {@code maxFrameSize}). A member that restarts comes back empty and the
 * leader pushes it the state; the maps survive any minority of members being down while members come back one at a
 * time, not a majority losing its state at once (what only they held is then lost, like an in-memory store's
 * content, and the group starts again from what the others hold once every member answers). The bus is at most once,
 * like every {@link MessageBus}: a message goes to the members known at the time and is lost for one that is
 * unreachable.
 *
 * <p>Thread: everything runs on one scheduler (its own thread by default); futures complete and bus handlers run on
 * it, so they must not block. Life cycle: {@link #start()} once the election is built, {@link #close()} after the work
 * cluster closed; the transport belongs to the caller.
 */
public final class ReplicatedWorkStore implements FencedMapStore, MessageBus, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReplicatedWorkStore.class);

    /** How often the store refreshes the members and repeats what was not answered; default. */
    public static final Duration DEFAULT_RETRY_INTERVAL = Duration.ofMillis(100);
    /** How long a write (or a leader's read) may wait for a majority; default. */
    public static final Duration DEFAULT_WRITE_TIMEOUT = Duration.ofSeconds(5);

    private final String group;
    private final ReplicaGroup members;
    private final Transport<ReplicaMessage> transport;
    private final Scheduler scheduler;
    private final ExecutorScheduler ownScheduler;
    private final Clock clock;
    private final Duration retryInterval;
    private final Duration writeTimeout;
    private final ReplicaState local = new ReplicaState();
    private final Map<String, List<Consumer<byte[]>>> subscribers = new ConcurrentHashMap<>();
    private Set<PeerAddress> replicas;
    /**
     * Whether the members' addresses were read at least once: a catch-up waits for it, so that no new leader counts a
     * majority of the members it knows before it knows any (with the bully election's majority, itself alone).
     */
    private boolean viewKnown;
    private LeaderTerm leader;
    /** The newest term another leader of the same term took from this one on the replicas: not led again here. */
    private long conflictedTerm;
    private Scheduler.Cancellable tick = Scheduler.Cancellable.NONE;
    /** Reads on this member, not leading, made before it held a state; answered once it holds one. */
    private final List<Runnable> readsAwaitingState = new ArrayList<>();
    /** Completed once this member's replica holds a state: formed leading, or pushed by a leader. */
    private final CompletableFuture<Long> holdingState = new CompletableFuture<>();
    private volatile boolean closed;

    private ReplicatedWorkStore(Builder b) {
        this.group = b.group;
        this.members = b.members;
        this.transport = b.transport;
        this.ownScheduler = b.scheduler == null ? new ExecutorScheduler("baton-replica-" + b.group) : null;
        this.scheduler = b.scheduler != null ? b.scheduler : ownScheduler;
        this.clock = b.clock;
        this.retryInterval = b.retryInterval;
        this.writeTimeout = b.writeTimeout;
        this.replicas = Set.of(transport.local());
    }

    /** The codec of the store's messages, for the transport it runs on. */
    public static JacksonMessageCodec<ReplicaMessage> codec() {
        return JacksonMessageCodec.forSealed(ReplicaMessage.class);
    }

    /**
     * Starts building the store of {@code group} over {@code transport} (whose {@link Transport#local()} address the
     * members advertise under {@link ReplicaGroup#ADDRESS_KEY}).
     */
    public static Builder builder(String group, ReplicaGroup members, Transport<ReplicaMessage> transport) {
        return new Builder(group, members, transport);
    }

    /** This member's store address. */
    public PeerAddress address() {
        return transport.local();
    }

    /** Takes the transport's messages and starts the periodic refresh. Call once. */
    public void start() {
        transport.setHandler((from, message) -> scheduler.execute(() -> onMessage(from, message)));
        scheduler.execute(this::onTick);
    }

    /** Stops the refresh; writes still waiting fail. Does not close the transport. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        scheduler.execute(() -> {
            tick.cancel();
            if (leader != null) {
                leader.end(new IllegalStateException("the replicated store is closed"), 0);
                leader = null;
            }
        });
        if (ownScheduler != null) {
            ownScheduler.execute(() -> ownScheduler.close(Duration.ZERO));
        }
    }

    private void onTick() {
        if (closed) {
            return;
        }
        members.replicas().whenComplete((found, error) -> scheduler.execute(() -> {
            if (found != null) {
                Set<PeerAddress> all = new TreeSet<>(found);
                all.add(transport.local());
                boolean changed = !all.equals(replicas);
                replicas = Set.copyOf(all);
                viewKnown = true;
                LeaderTerm current = current();
                if (current != null && changed && current.started()) {
                    current.view(replicas, members.majority(replicas.size()), members.size(replicas.size()));
                }
                recover();
                onStateHeld();
            }
        }));
        LeaderTerm current = current();
        if (current != null) {
            current.tick(clock.nanoTime());
        }
        tick = scheduler.schedule(retryInterval, this::onTick);
    }

    /** The leader term this member holds now, started if new; ends one the election no longer holds. */
    private LeaderTerm current() {
        Optional<Leadership> held = members.leadership().filter(Leadership::isValid);
        if (leader != null && (held.isEmpty() || held.get().term() != leader.term()
                || leader.phase() == LeaderTerm.Phase.ENDED)) {
            if (leader.conflicted()) {
                conflictedTerm = Math.max(conflictedTerm, leader.term());
            }
            leader.end(new IllegalStateException("the leadership of term " + leader.term() + " ended"),
                    local.newestTerm());
            leader = null;
        }
        if (leader == null && held.isPresent() && held.get().term() >= local.newestTerm()
                && held.get().term() > conflictedTerm && !closed) {
            leader = new LeaderTerm(held.get().term(), transport.local(), local, this::send, writeTimeout.toNanos(),
                    scheduler::execute);
        }
        if (leader != null && !leader.started() && viewKnown) {
            leader.start(replicas, members.majority(replicas.size()), members.size(replicas.size()),
                    clock.nanoTime());
        }
        return leader;
    }

    /** While the replica recovers: asks the members that have not answered yet for the newest term they have seen. */
    private void recover() {
        if (local.finishRecovery(recoveryAnswersNeeded())) {
            endIfSuperseded();
            return;
        }
        for (PeerAddress peer : replicas) {
            if (!peer.equals(transport.local()) && !local.answeredRecovery(peer)) {
                send(peer, new RecoveryQuery());
            }
        }
    }

    /**
     * How many other members a recovering replica hears from: N - M + 1 of a group of N with majority M, so that they
     * include one of the M - 1 others that took part in any term's catch-up or acknowledged its leader's state (none
     * in a group of one).
     */
    private int recoveryAnswersNeeded() {
        int size = members.size(replicas.size());
        return Math.max(0, Math.min(size - members.majority(replicas.size()) + 1, size - 1));
    }

    private void send(PeerAddress to, ReplicaMessage message) {
        try {
            transport.send(to, message);
        } catch (IllegalStateException e) {
            log.debug("Not sent to {} (transport closed): {}", to, message);
        } catch (IllegalArgumentException e) {
            // Larger than the transport's frame limit: the whole state travels in one push. Writes that need it
            // time out; the remedy is a larger maxFrameSize on the store's transport.
            log.warn("Not sent to {}: {}", to, e.getMessage());
        }
    }

    private void onMessage(PeerAddress from, ReplicaMessage message) {
        if (closed) {
            return;
        }
        LeaderTerm current = current();
        long now = clock.nanoTime();
        if (message instanceof SnapshotRequest request) {
            send(from, local.onSnapshotRequest(from, request.term()));
        } else if (message instanceof Push push) {
            PushAck answer = local.onPush(from, push);
            if (answer != null) {
                send(from, answer);
            }
        } else if (message instanceof Write write) {
            send(from, local.onWrite(from, write));
        } else if (message instanceof Sync sync) {
            WriteAck answer = local.onSync(from, sync);
            if (answer != null) {
                send(from, answer);
            }
        } else if (message instanceof RecoveryQuery) {
            send(from, local.onRecoveryQuery());
        } else if (message instanceof RecoveryAnswer answer) {
            if (viewKnown) {
                local.onRecoveryAnswer(from, answer, recoveryAnswersNeeded());
            }
        } else if (message instanceof Publish publish) {
            deliver(publish.channel(), publish.message());
        } else if (current != null) {
            if (message instanceof Snapshot snapshot) {
                current.onSnapshot(from, snapshot);
            } else if (message instanceof PushAck ack) {
                current.onPushAck(from, ack);
            } else if (message instanceof WriteAck ack) {
                current.onWriteAck(from, ack, now);
            }
        }
        endIfSuperseded();
        onStateHeld();
    }

    private void endIfSuperseded() {
        if (leader != null && local.newestTerm() > leader.term()) {
            // A newer leader spoke to this member (or, recovering, it learned of one): this member's term is over,
            // whatever its election still says.
            leader.end(new IllegalStateException("term " + leader.term() + " was superseded by term "
                    + local.newestTerm()), local.newestTerm());
            leader = null;
        }
    }

    @Override
    public CompletableFuture<FencedMapWrite> fencedPut(String group, String map, String key, String nodeId, long term,
            byte[] value) {
        Objects.requireNonNull(value, "value");
        return write(group, map, key, nodeId, term, value.clone());
    }

    @Override
    public CompletableFuture<FencedMapWrite> fencedRemove(String group, String map, String key, String nodeId,
            long term) {
        return write(group, map, key, nodeId, term, null);
    }

    private CompletableFuture<FencedMapWrite> write(String group, String map, String key, String nodeId, long term,
            byte[] value) {
        requireGroup(group);
        Objects.requireNonNull(map, "map");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(nodeId, "nodeId");
        return bounded(onScheduler(() -> {
            LeaderTerm current = current();
            if (current == null || current.term() != term) {
                return CompletableFuture.completedFuture(refused(term));
            }
            CompletableFuture<FencedMapWrite> result = new CompletableFuture<>();
            current.whenSettled(() -> {
                LeaderTerm still = current();
                CompletableFuture<FencedMapWrite> write = still != current
                        || current.phase() != LeaderTerm.Phase.READY ? CompletableFuture.completedFuture(refused(term))
                        : current.write(map, key, value, nodeId, clock.nanoTime());
                forward(write, result);
            });
            return result;
        }), "write " + map + "/" + key);
    }

    private FencedMapWrite refused(long term) {
        long newest = Math.max(local.newestTerm(), members.leadership().map(Leadership::term).orElse(0L));
        return new FencedMapWrite(false, newest > term ? newest : Math.max(newest, term), false);
    }

    @Override
    public CompletableFuture<Optional<FencedValue>> mapGet(String group, String map, String key) {
        requireGroup(group);
        return read(() -> local.get(map, key), "read " + map + "/" + key);
    }

    @Override
    public CompletableFuture<SortedMap<String, FencedValue>> mapEntries(String group, String map) {
        requireGroup(group);
        return read(() -> local.entries(map), "read " + map);
    }

    /**
     * A leader's read waits for its catch-up; anyone else's answers from the replica at once, once the replica holds a
     * state (a member that started empty waits for a leader's push first). So does a leader's read whose term ended
     * before it caught up: the member may still hold no state.
     */
    private <T> CompletableFuture<T> read(Supplier<T> fromReplica, String what) {
        return bounded(onScheduler(() -> {
            LeaderTerm current = current();
            CompletableFuture<T> result = new CompletableFuture<>();
            Runnable fromState = () -> result.complete(fromReplica.get());
            Runnable answer = () -> {
                if (local.holdsState()) {
                    fromState.run();
                } else {
                    readsAwaitingState.add(fromState);
                }
            };
            if (current != null) {
                current.whenSettled(answer);
            } else {
                answer.run();
            }
            return result;
        }), () -> local.holdsState() ? what
                : what + " (this member started empty and no leader has pushed it the state yet)");
    }

    /**
     * Completes once this member's replica holds a state again since it started empty: it led and caught up, or a
     * leader pushed it the whole state. The value is the term whose state it took. Until then the member has nothing
     * to give a later leader: the group keeps every acknowledged write only while no majority is in that position at
     * once, so an operator restarting members one by one waits for this between restarts. Never completes on a store
     * that closes first; runs its callbacks on the store's scheduler.
     */
    public CompletableFuture<Long> holdingState() {
        return holdingState.copy();
    }

    /** Once this member holds a state: completes {@link #holdingState()} and answers the reads that waited for it. */
    private void onStateHeld() {
        if (!local.holdsState()) {
            return;
        }
        if (!holdingState.isDone()) {
            holdingState.complete(local.syncedTerm());
        }
        if (readsAwaitingState.isEmpty()) {
            return;
        }
        List<Runnable> waiting = List.copyOf(readsAwaitingState);
        readsAwaitingState.clear();
        waiting.forEach(Runnable::run);
    }

    private void requireGroup(String name) {
        if (!group.equals(name)) {
            throw new IllegalArgumentException("this replicated store holds group " + group + ", not " + name);
        }
    }

    private <T> CompletableFuture<T> onScheduler(Supplier<CompletableFuture<T>> task) {
        CompletableFuture<T> result = new CompletableFuture<>();
        scheduler.execute(() -> {
            try {
                forward(task.get(), result);
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    private static <T> void forward(CompletableFuture<T> from, CompletableFuture<T> to) {
        from.whenComplete((value, error) -> {
            if (error != null) {
                to.completeExceptionally(error);
            } else {
                to.complete(value);
            }
        });
    }

    private <T> CompletableFuture<T> bounded(CompletableFuture<T> call, String what) {
        return bounded(call, () -> what);
    }

    /** Fails {@code call} after the write timeout; {@code what} is read then, on the scheduler. */
    private <T> CompletableFuture<T> bounded(CompletableFuture<T> call, Supplier<String> what) {
        Scheduler.Cancellable timer = scheduler.schedule(writeTimeout, () -> call.completeExceptionally(
                new StoreTimeoutException(what.get() + " did not complete within " + writeTimeout.toMillis() + " ms")));
        call.whenComplete((value, error) -> timer.cancel());
        return call;
    }

    @Override
    public CompletableFuture<Long> publish(String channel, byte[] message) {
        Objects.requireNonNull(channel, "channel");
        byte[] copy = message.clone();
        return members.replicas().thenApply(found -> {
            Set<PeerAddress> to = new TreeSet<>(found);
            to.remove(transport.local());
            for (PeerAddress peer : to) {
                send(peer, new Publish(channel, copy));
            }
            scheduler.execute(() -> deliver(channel, copy));
            return -1L;
        });
    }

    @Override
    public Subscription subscribe(String channel, Consumer<byte[]> handler) {
        Objects.requireNonNull(channel, "channel");
        Objects.requireNonNull(handler, "handler");
        subscribers.computeIfAbsent(channel, c -> new CopyOnWriteArrayList<>()).add(handler);
        return new Subscription() {
            @Override
            public CompletableFuture<Void> ready() {
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public void close() {
                List<Consumer<byte[]>> handlers = subscribers.get(channel);
                if (handlers != null) {
                    handlers.remove(handler);
                }
            }
        };
    }

    private void deliver(String channel, byte[] message) {
        List<Consumer<byte[]>> handlers = subscribers.get(channel);
        if (handlers == null) {
            return;
        }
        for (Consumer<byte[]> handler : handlers) {
            try {
                handler.accept(message.clone());
            } catch (RuntimeException e) {
                log.warn("A subscriber of {} failed: {}", channel, e.toString());
            }
        }
    }

    @Override
    public String toString() {
        return "ReplicatedWorkStore{group=" + group + ", address=" + transport.local() + "}";
    }

    /** Builds a {@link ReplicatedWorkStore}; everything but the group, members and transport has a default. */
    public static final class Builder {
        private final String group;
        private final ReplicaGroup members;
        private final Transport<ReplicaMessage> transport;
        private Scheduler scheduler;
        private Clock clock = Clock.system();
        private Duration retryInterval = DEFAULT_RETRY_INTERVAL;
        private Duration writeTimeout = DEFAULT_WRITE_TIMEOUT;

        private Builder(String group, ReplicaGroup members, Transport<ReplicaMessage> transport) {
            if (group == null || group.isBlank()) {
                throw new IllegalArgumentException("group must not be blank");
            }
            this.group = group;
            this.members = Objects.requireNonNull(members, "members");
            this.transport = Objects.requireNonNull(transport, "transport");
        }

        /** The scheduler everything runs on; default a thread of its own, stopped on close. */
        public Builder scheduler(Scheduler value) {
            this.scheduler = Objects.requireNonNull(value, "scheduler");
            return this;
        }

        /** Time source; default {@link Clock#system()}. */
        public Builder clock(Clock value) {
            this.clock = Objects.requireNonNull(value, "clock");
            return this;
        }

        /** How often members are refreshed and unanswered messages repeated; default 100 ms. */
        public Builder retryInterval(Duration value) {
            this.retryInterval = positive(value, "retryInterval");
            return this;
        }

        /** How long a write, or a leader's read, may wait for a majority; default 5 s. */
        public Builder writeTimeout(Duration value) {
            this.writeTimeout = positive(value, "writeTimeout");
            return this;
        }

        private static Duration positive(Duration value, String field) {
            Objects.requireNonNull(value, field);
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(field + " must be positive, was " + value);
            }
            return value;
        }

        /** The store, not started. */
        public ReplicatedWorkStore build() {
            if (writeTimeout.compareTo(retryInterval) <= 0) {
                throw new IllegalArgumentException("writeTimeout (" + writeTimeout + ") must be longer than "
                        + "retryInterval (" + retryInterval + ")");
            }
            return new ReplicatedWorkStore(this);
        }
    }
}

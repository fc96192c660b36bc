package dev.baton.core.memory;

import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
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
import dev.baton.core.store.SessionEndedException;
import dev.baton.core.store.SessionStore;
import dev.baton.core.store.StoreException;
import dev.baton.core.store.Subscription;
import dev.baton.core.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A complete {@link CoordinationStore} in one JVM: a real backend for single-process deployments and tests, held to
 * the same conformance suite as Redis.
 *
 * <p>The store's clock is the {@link Clock} it is given, so under a fake clock leases expire exactly when the test
 * says. Every operation completes before it returns; notices are delivered on the calling thread after the store's
 * lock is released. The roles are inner classes over one state under one lock, since they are not independent: a
 * fenced write is judged by the term the lease role issued last, and a member's role by who holds the lease.
 *
 * <p>{@link #close()} forgets everything; afterwards the leader record calls fail with a {@link StoreException}, as
 * every server store's calls do.
 */
public final class InMemoryStore implements CoordinationStore {

    private final Clock clock;
    private final Map<String, GroupState> groups = new HashMap<>();
    private final Map<String, SessionState> sessions = new HashMap<>();
    private long sessionIds;
    private final Map<String, List<Consumer<byte[]>>> channels = new HashMap<>();
    private boolean closed;
    private final LeaseStore leases = new Leases();
    private final RegistryStore registry = new Registry();
    private final FencedStore registers = new Registers();
    private final FencedMapStore maps = new Maps();
    private final EventLogStore events = new Events();
    private final MessageBus bus = new Bus();
    private final LeaderRecordStore leaderRecords = new LeaderRecords();
    private final SessionStore sessionStore = new Sessions();

    public InMemoryStore() {
        this(Clock.system());
    }

    public InMemoryStore(Clock clock) {
        this.clock = clock;
    }

    /** A session: alive until {@code expiresAt} on the store's clock unless closed; an ended one stays ended. */
    private static final class SessionState {
        final String id;
        final NodeInfo owner;
        long expiresAt;
        Instant lastSeen;
        boolean closed;

        SessionState(String id, NodeInfo owner, long expiresAt, Instant lastSeen) {
            this.id = id;
            this.owner = owner;
            this.expiresAt = expiresAt;
            this.lastSeen = lastSeen;
        }

        boolean alive(long now) {
            return !closed && expiresAt - now > 0;
        }
    }

    private static final class GroupState {
        long term;
        String owner;
        long leaseTerm;
        long expiresAt;
        /** The session the lease is bound to, or null for a lease with a TTL of its own. */
        SessionState holder;
        /** The sessions that joined the group, with when they joined. */
        final Map<String, Instant> sessionMembers = new HashMap<>();
        NodeInfo leaderInfo;
        final Map<String, NodeInfo> members = new TreeMap<>();
        final Map<String, Long> memberExpiry = new HashMap<>();
        final Map<String, FencedValue> registers = new HashMap<>();
        final Map<String, SortedMap<String, FencedValue>> maps = new HashMap<>();
        final ArrayDeque<ClusterEvent> events = new ArrayDeque<>();
        long eventId;
        LeaderRecord leaderRecord;
        final List<Consumer<LeaseNotice>> leaseWatchers = new CopyOnWriteArrayList<>();
        final List<Consumer<MemberNotice>> memberWatchers = new CopyOnWriteArrayList<>();

        boolean leaseLive(long now) {
            return owner != null && (holder != null ? holder.alive(now) : expiresAt - now > 0);
        }

        Lease lease(long now) {
            return holder != null
                    ? new Lease(owner, leaseTerm, Duration.ofNanos(holder.expiresAt - now), holder.id)
                    : new Lease(owner, leaseTerm, Duration.ofNanos(expiresAt - now));
        }

        /** Grants the lease to {@code candidate} under a new term; returns the term. */
        long grant(NodeInfo candidate, Instant stamp) {
            term++;
            owner = candidate.id();
            leaseTerm = term;
            leaderInfo = candidate.withRole(Role.LEADER).withTimes(stamp, stamp);
            return term;
        }
    }

    private GroupState group(String name) {
        return groups.computeIfAbsent(name, n -> new GroupState());
    }

    private long now() {
        return clock.nanoTime();
    }

    @Override
    public LeaseStore leases() {
        return leases;
    }

    @Override
    public RegistryStore registry() {
        return registry;
    }

    @Override
    public FencedStore registers() {
        return registers;
    }

    @Override
    public FencedMapStore maps() {
        return maps;
    }

    @Override
    public EventLogStore events() {
        return events;
    }

    @Override
    public MessageBus bus() {
        return bus;
    }

    @Override
    public LeaderRecordStore leaderRecords() {
        return leaderRecords;
    }

    @Override
    public Optional<SessionStore> sessions() {
        return Optional.of(sessionStore);
    }

    @Override
    public String describe() {
        return "memory";
    }

    @Override
    public void close() {
        synchronized (InMemoryStore.this) {
            closed = true;
            groups.clear();
            sessions.clear();
            channels.clear();
        }
    }

    /** The lease role: acquire, renew, release, read and watch on the groups' leases. */
    private final class Leases implements LeaseStore {

        @Override
        public CompletableFuture<AcquireResult> acquire(String group, NodeInfo candidate, Duration ttl) {
            AcquireResult result;
            List<Consumer<LeaseNotice>> watchers;
            synchronized (InMemoryStore.this) {
                GroupState g = group(group);
                long now = now();
                if (g.leaseLive(now) && !g.owner.equals(candidate.id())) {
                    return CompletableFuture.completedFuture(new AcquireResult.Denied(g.lease(now)));
                }
                result = new AcquireResult.Granted(g.grant(candidate, clock.instant()));
                g.holder = null;
                g.expiresAt = now + ttl.toNanos();
                watchers = g.leaseWatchers;
            }
            deliver(watchers, new LeaseNotice(LeaseNotice.Kind.ACQUIRED, candidate.id(),
                    ((AcquireResult.Granted) result).term()));
            return CompletableFuture.completedFuture(result);
        }

        @Override
        public CompletableFuture<Boolean> renew(String group, String nodeId, long term, Duration ttl) {
            synchronized (InMemoryStore.this) {
                GroupState g = group(group);
                long now = now();
                if (!g.leaseLive(now) || g.holder != null || !g.owner.equals(nodeId) || g.leaseTerm != term) {
                    return CompletableFuture.completedFuture(false);
                }
                g.expiresAt = now + ttl.toNanos();
                return CompletableFuture.completedFuture(true);
            }
        }

        @Override
        public CompletableFuture<Boolean> release(String group, String nodeId, long term) {
            List<Consumer<LeaseNotice>> watchers;
            synchronized (InMemoryStore.this) {
                GroupState g = group(group);
                if (!g.leaseLive(now()) || !g.owner.equals(nodeId) || g.leaseTerm != term) {
                    return CompletableFuture.completedFuture(false);
                }
                g.owner = null;
                g.holder = null;
                g.leaderInfo = null;
                watchers = g.leaseWatchers;
            }
            deliver(watchers, new LeaseNotice(LeaseNotice.Kind.RELEASED, nodeId, term));
            return CompletableFuture.completedFuture(true);
        }

        @Override
        public CompletableFuture<Optional<Lease>> read(String group) {
            synchronized (InMemoryStore.this) {
                GroupState g = group(group);
                long now = now();
                if (!g.leaseLive(now)) {
                    return CompletableFuture.completedFuture(Optional.empty());
                }
                return CompletableFuture.completedFuture(Optional.of(g.lease(now)));
            }
        }

        @Override
        public Subscription watch(String group, Consumer<LeaseNotice> listener) {
            List<Consumer<LeaseNotice>> watchers;
            synchronized (InMemoryStore.this) {
                watchers = group(group).leaseWatchers;
            }
            watchers.add(listener);
            return new LocalSubscription(() -> watchers.remove(listener));
        }
    }

    /** The registry role: members with a TTL, whose role is derived from the group's lease. */
    private final class Registry implements RegistryStore {

        @Override
        public CompletableFuture<Void> register(String group, NodeInfo node, Duration ttl) {
            boolean added;
            List<Consumer<MemberNotice>> watchers;
            synchronized (InMemoryStore.this) {
                GroupState g = group(group);
                long now = now();
                sweep(g, now);
                NodeInfo previous = g.members.get(node.id());
                Instant stamp = clock.instant();
                Instant registeredAt = previous != null ? previous.registeredAt() : stamp;
                g.members.put(node.id(), node.withTimes(registeredAt, stamp));
                g.memberExpiry.put(node.id(), now + ttl.toNanos());
                added = previous == null;
                watchers = g.memberWatchers;
            }
            if (added) {
                deliver(watchers, new MemberNotice(MemberNotice.Kind.REGISTERED, node.id()));
            }
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Boolean> heartbeat(String group, String nodeId, Duration ttl) {
            synchronized (InMemoryStore.this) {
                GroupState g = group(group);
                long now = now();
                sweep(g, now);
                NodeInfo current = g.members.get(nodeId);
                if (current == null) {
                    return CompletableFuture.completedFuture(false);
                }
                g.members.put(nodeId, current.withTimes(current.registeredAt(), clock.instant()));
                g.memberExpiry.put(nodeId, now + ttl.toNanos());
                return CompletableFuture.completedFuture(true);
            }
        }

        @Override
        public CompletableFuture<Boolean> unregister(String group, String nodeId) {
            List<Consumer<MemberNotice>> watchers;
            synchronized (InMemoryStore.this) {
                GroupState g = group(group);
                sweep(g, now());
                if (g.members.remove(nodeId) == null) {
                    return CompletableFuture.completedFuture(false);
                }
                g.memberExpiry.remove(nodeId);
                watchers = g.memberWatchers;
            }
            deliver(watchers, new MemberNotice(MemberNotice.Kind.UNREGISTERED, nodeId));
            return CompletableFuture.completedFuture(true);
        }

        @Override
        public CompletableFuture<List<NodeInfo>> members(String group) {
            synchronized (InMemoryStore.this) {
                GroupState g = group(group);
                long now = now();
                List<NodeInfo> live = new ArrayList<>();
                for (NodeInfo node : g.members.values()) {
                    if (g.memberExpiry.get(node.id()) - now > 0) {
                        live.add(withDerivedRole(g, node, now));
                    }
                }
                return CompletableFuture.completedFuture(live);
            }
        }

        @Override
        public CompletableFuture<Optional<NodeInfo>> member(String group, String nodeId) {
            synchronized (InMemoryStore.this) {
                GroupState g = group(group);
                long now = now();
                NodeInfo node = g.members.get(nodeId);
                if (node == null || g.memberExpiry.get(nodeId) - now <= 0) {
                    return CompletableFuture.completedFuture(Optional.empty());
                }
                return CompletableFuture.completedFuture(Optional.of(withDerivedRole(g, node, now)));
            }
        }

        @Override
        public CompletableFuture<Optional<NodeInfo>> leaderInfo(String group) {
            synchronized (InMemoryStore.this) {
                GroupState g = group(group);
                if (!g.leaseLive(now())) {
                    return CompletableFuture.completedFuture(Optional.empty());
                }
                return CompletableFuture.completedFuture(Optional.ofNullable(g.leaderInfo));
            }
        }

        @Override
        public CompletableFuture<List<String>> sweepExpired(String group) {
            synchronized (InMemoryStore.this) {
                return CompletableFuture.completedFuture(sweep(group(group), now()));
            }
        }

        @Override
        public Subscription watchMembers(String group, Consumer<MemberNotice> listener) {
            List<Consumer<MemberNotice>> watchers;
            synchronized (InMemoryStore.this) {
                watchers = group(group).memberWatchers;
            }
            watchers.add(listener);
            return new LocalSubscription(() -> watchers.remove(listener));
        }
    }

    /** The session role: sessions, the group leases bound to them and the groups they joined. */
    private final class Sessions implements SessionStore {

        @Override
        public CompletableFuture<String> open(NodeInfo owner, Duration ttl) {
            synchronized (InMemoryStore.this) {
                long now = now();
                sessions.values().removeIf(ended -> !ended.alive(now)); // ids are never reused: unknown means ended
                String id = "s" + ++sessionIds;
                sessions.put(id, new SessionState(id, owner, now + ttl.toNanos(), clock.instant()));
                return CompletableFuture.completedFuture(id);
            }
        }

        @Override
        public CompletableFuture<Boolean> keepAlive(String session, Duration ttl) {
            synchronized (InMemoryStore.this) {
                SessionState s = sessions.get(session);
                long now = now();
                if (s == null || !s.alive(now)) {
                    return CompletableFuture.completedFuture(false);
                }
                s.expiresAt = now + ttl.toNanos();
                s.lastSeen = clock.instant();
                return CompletableFuture.completedFuture(true);
            }
        }

        @Override
        public CompletableFuture<Boolean> close(String session) {
            List<Runnable> notices = new ArrayList<>();
            synchronized (InMemoryStore.this) {
                SessionState s = sessions.get(session);
                if (s == null || !s.alive(now())) {
                    return CompletableFuture.completedFuture(false);
                }
                s.closed = true;
                for (GroupState g : groups.values()) {
                    if (g.sessionMembers.remove(session) != null) {
                        List<Consumer<MemberNotice>> watchers = g.memberWatchers;
                        notices.add(() -> deliver(watchers,
                                new MemberNotice(MemberNotice.Kind.UNREGISTERED, s.owner.id())));
                    }
                }
            }
            notices.forEach(Runnable::run);
            return CompletableFuture.completedFuture(true);
        }

        @Override
        public CompletableFuture<Map<String, Duration>> remaining(Set<String> ids) {
            synchronized (InMemoryStore.this) {
                long now = now();
                Map<String, Duration> alive = new HashMap<>();
                for (String id : ids) {
                    SessionState s = sessions.get(id);
                    if (s != null && s.alive(now)) {
                        alive.put(id, Duration.ofNanos(s.expiresAt - now));
                    }
                }
                return CompletableFuture.completedFuture(alive);
            }
        }

        @Override
        public CompletableFuture<AcquireResult> acquire(String group, String session, NodeInfo candidate) {
            long term;
            List<Consumer<LeaseNotice>> watchers;
            synchronized (InMemoryStore.this) {
                SessionState s = liveSession(session);
                if (s == null) {
                    return CompletableFuture.failedFuture(new SessionEndedException(session));
                }
                GroupState g = group(group);
                long now = now();
                if (g.leaseLive(now) && !g.owner.equals(candidate.id())) {
                    return CompletableFuture.completedFuture(new AcquireResult.Denied(g.lease(now)));
                }
                term = g.grant(candidate, clock.instant());
                g.holder = s;
                watchers = g.leaseWatchers;
            }
            deliver(watchers, new LeaseNotice(LeaseNotice.Kind.ACQUIRED, candidate.id(), term));
            return CompletableFuture.completedFuture(new AcquireResult.Granted(term));
        }

        @Override
        public CompletableFuture<Boolean> release(String group, String session, long term) {
            String owner;
            List<Consumer<LeaseNotice>> watchers;
            synchronized (InMemoryStore.this) {
                GroupState g = group(group);
                if (!g.leaseLive(now()) || g.holder == null || !g.holder.id.equals(session) || g.leaseTerm != term) {
                    return CompletableFuture.completedFuture(false);
                }
                owner = g.owner;
                g.owner = null;
                g.holder = null;
                g.leaderInfo = null;
                watchers = g.leaseWatchers;
            }
            deliver(watchers, new LeaseNotice(LeaseNotice.Kind.RELEASED, owner, term));
            return CompletableFuture.completedFuture(true);
        }

        @Override
        public CompletableFuture<Void> join(String group, String session) {
            String node;
            List<Consumer<MemberNotice>> watchers;
            synchronized (InMemoryStore.this) {
                SessionState s = liveSession(session);
                if (s == null) {
                    return CompletableFuture.failedFuture(new SessionEndedException(session));
                }
                GroupState g = group(group);
                if (g.sessionMembers.putIfAbsent(session, clock.instant()) != null) {
                    return CompletableFuture.completedFuture(null);
                }
                node = s.owner.id();
                watchers = g.memberWatchers;
            }
            deliver(watchers, new MemberNotice(MemberNotice.Kind.REGISTERED, node));
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Boolean> leave(String group, String session) {
            String node;
            List<Consumer<MemberNotice>> watchers;
            synchronized (InMemoryStore.this) {
                GroupState g = group(group);
                SessionState s = sessions.get(session);
                if (g.sessionMembers.remove(session) == null || s == null || !s.alive(now())) {
                    return CompletableFuture.completedFuture(false);
                }
                node = s.owner.id();
                watchers = g.memberWatchers;
            }
            deliver(watchers, new MemberNotice(MemberNotice.Kind.UNREGISTERED, node));
            return CompletableFuture.completedFuture(true);
        }

        @Override
        public CompletableFuture<Map<String, NodeInfo>> members(String group) {
            synchronized (InMemoryStore.this) {
                GroupState g = group(group);
                long now = now();
                g.sessionMembers.keySet().removeIf(id -> liveSession(id) == null);
                List<Map.Entry<String, NodeInfo>> live = new ArrayList<>();
                for (Map.Entry<String, Instant> member : g.sessionMembers.entrySet()) {
                    SessionState s = sessions.get(member.getKey());
                    NodeInfo node = s.owner.withTimes(member.getValue(), s.lastSeen);
                    live.add(Map.entry(s.id, withDerivedRole(g, node, now)));
                }
                live.sort(Map.Entry.comparingByValue(Comparator.comparing(NodeInfo::id)));
                Map<String, NodeInfo> ordered = new LinkedHashMap<>();
                live.forEach(e -> ordered.put(e.getKey(), e.getValue()));
                return CompletableFuture.completedFuture(ordered);
            }
        }

        private SessionState liveSession(String session) {
            SessionState s = sessions.get(session);
            return s != null && s.alive(now()) ? s : null;
        }
    }

    /** The fenced register role, fenced by the term the lease role issued last. */
    private final class Registers implements FencedStore {

        @Override
        public CompletableFuture<FencedWriteResult> fencedWrite(String group, String register,
                String nodeId, long term, byte[] value) {
            synchronized (InMemoryStore.this) {
                GroupState g = group(group);
                FencedValue current = g.registers.get(register);
                long newest = Math.max(g.term, current == null ? Long.MIN_VALUE : current.term());
                if (g.term == 0 || term != g.term || term < newest) {
                    return CompletableFuture.completedFuture(new FencedWriteResult(false, newest));
                }
                g.registers.put(register, new FencedValue(term, nodeId, value.clone()));
                return CompletableFuture.completedFuture(new FencedWriteResult(true, term));
            }
        }

        @Override
        public CompletableFuture<Optional<FencedValue>> fencedRead(String group, String register) {
            synchronized (InMemoryStore.this) {
                return CompletableFuture.completedFuture(Optional.ofNullable(group(group).registers.get(register)));
            }
        }
    }

    /** The fenced map role, fenced like the registers. */
    private final class Maps implements FencedMapStore {

        @Override
        public CompletableFuture<FencedMapWrite> fencedPut(String group, String map, String key,
                String nodeId, long term, byte[] value) {
            synchronized (InMemoryStore.this) {
                GroupState g = group(group);
                if (g.term == 0 || term != g.term) {
                    return CompletableFuture.completedFuture(new FencedMapWrite(false, g.term, false));
                }
                FencedValue previous = g.maps.computeIfAbsent(map, m -> new TreeMap<>())
                        .put(key, new FencedValue(term, nodeId, value.clone()));
                return CompletableFuture.completedFuture(new FencedMapWrite(true, term, previous != null));
            }
        }

        @Override
        public CompletableFuture<FencedMapWrite> fencedRemove(String group, String map, String key,
                String nodeId, long term) {
            synchronized (InMemoryStore.this) {
                GroupState g = group(group);
                if (g.term == 0 || term != g.term) {
                    return CompletableFuture.completedFuture(new FencedMapWrite(false, g.term, false));
                }
                SortedMap<String, FencedValue> entries = g.maps.get(map);
                boolean existed = entries != null && entries.remove(key) != null;
                return CompletableFuture.completedFuture(new FencedMapWrite(true, term, existed));
            }
        }

        @Override
        public CompletableFuture<Optional<FencedValue>> mapGet(String group, String map, String key) {
            synchronized (InMemoryStore.this) {
                SortedMap<String, FencedValue> entries = group(group).maps.get(map);
                return CompletableFuture.completedFuture(Optional.ofNullable(entries == null ? null : entries
                        .get(key)));
            }
        }

        @Override
        public CompletableFuture<SortedMap<String, FencedValue>> mapEntries(String group, String map) {
            synchronized (InMemoryStore.this) {
                SortedMap<String, FencedValue> entries = group(group).maps.get(map);
                return CompletableFuture.completedFuture(entries == null ? new TreeMap<>() : new TreeMap<>(entries));
            }
        }
    }

    /** The event log role: the newest {@link #MIN_RETAINED} events of each group. */
    private final class Events implements EventLogStore {

        @Override
        public CompletableFuture<Void> appendEvent(String group, String nodeId, String type,
                Map<String, String> data) {
            synchronized (InMemoryStore.this) {
                GroupState g = group(group);
                g.events.addFirst(new ClusterEvent(++g.eventId, nodeId, type, data, clock.instant()));
                while (g.events.size() > EventLogStore.MIN_RETAINED) {
                    g.events.removeLast();
                }
                return CompletableFuture.completedFuture(null);
            }
        }

        @Override
        public CompletableFuture<List<ClusterEvent>> recentEvents(String group, int limit) {
            synchronized (InMemoryStore.this) {
                return CompletableFuture.completedFuture(group(group).events.stream().limit(Math.max(0, limit))
                        .toList());
            }
        }
    }

    /** The message bus role: handlers run on the publisher's thread. */
    private final class Bus implements MessageBus {

        @Override
        public CompletableFuture<Long> publish(String channel, byte[] message) {
            List<Consumer<byte[]>> handlers;
            synchronized (InMemoryStore.this) {
                handlers = List.copyOf(channels.getOrDefault(channel, List.of()));
            }
            for (Consumer<byte[]> handler : handlers) {
                handler.accept(message.clone());
            }
            return CompletableFuture.completedFuture((long) handlers.size());
        }

        @Override
        public Subscription subscribe(String channel, Consumer<byte[]> handler) {
            synchronized (InMemoryStore.this) {
                channels.computeIfAbsent(channel, c -> new CopyOnWriteArrayList<>()).add(handler);
            }
            return new LocalSubscription(() -> {
                synchronized (InMemoryStore.this) {
                    List<Consumer<byte[]>> handlers = channels.get(channel);
                    if (handlers != null) {
                        handlers.remove(handler);
                    }
                }
            });
        }
    }

    /** The leader record role; it fails once the store is closed, and closing it closes the store. */
    private final class LeaderRecords implements LeaderRecordStore {

        @Override
        public CompletableFuture<Optional<LeaderRecord>> readLeader(String group) {
            synchronized (InMemoryStore.this) {
                if (closed) {
                    return closedFailure("read leader record");
                }
                return CompletableFuture.completedFuture(Optional.ofNullable(group(group).leaderRecord));
            }
        }

        @Override
        public CompletableFuture<LeaderRecordWrite> writeLeader(LeaderRecord record) {
            synchronized (InMemoryStore.this) {
                if (closed) {
                    return closedFailure("write leader record");
                }
                GroupState g = group(record.group());
                LeaderRecord stored = g.leaderRecord;
                boolean accepted = stored == null || stored.term() < record.term()
                        || (stored.term() == record.term() && stored.leaderId().equals(record.leaderId()));
                if (accepted) {
                    g.leaderRecord = record;
                }
                return CompletableFuture.completedFuture(new LeaderRecordWrite(accepted, g.leaderRecord));
            }
        }

        @Override
        public String describe() {
            return InMemoryStore.this.describe();
        }

        @Override
        public void close() {
            InMemoryStore.this.close();
        }
    }

    private static <T> CompletableFuture<T> closedFailure(String operation) {
        return CompletableFuture.failedFuture(new StoreException(operation + " on memory failed: the store is closed"));
    }

    private static NodeInfo withDerivedRole(GroupState g, NodeInfo node, long now) {
        boolean leads = g.leaseLive(now) && g.owner.equals(node.id());
        return node.withRole(leads ? Role.LEADER : Role.FOLLOWER);
    }

    private static List<String> sweep(GroupState g, long now) {
        List<String> removed = new ArrayList<>();
        g.memberExpiry.entrySet().removeIf(e -> {
            if (e.getValue() - now <= 0) {
                removed.add(e.getKey());
                return true;
            }
            return false;
        });
        removed.forEach(g.members::remove);
        return removed;
    }

    private static <T> void deliver(List<Consumer<T>> watchers, T notice) {
        for (Consumer<T> watcher : watchers) {
            watcher.accept(notice);
        }
    }

    private static final class LocalSubscription implements Subscription {
        private final Runnable onClose;
        private boolean closed;

        LocalSubscription(Runnable onClose) {
            this.onClose = onClose;
        }

        @Override
        public CompletableFuture<Void> ready() {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public synchronized void close() {
            if (!closed) {
                closed = true;
                onClose.run();
            }
        }
    }
}

package dev.baton.core.lease;

import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.MemberState;
import dev.baton.core.MemberStatus;
import dev.baton.core.NodeInfo;
import dev.baton.core.Registry;
import dev.baton.core.store.RegistryStore;
import dev.baton.core.store.SessionStore;
import dev.baton.core.store.Subscription;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The process registry side of a lease election: keeps this process a member of the group and, while this node
 * leads, turns membership changes into member-joined / member-removed events (the original registry's
 * {@code slave-registered} and {@code slave-removed} are emitted on the master only).
 *
 * <p>Two ways to be a member. With leases of their own, the process keeps a registry entry (heartbeat every
 * {@code processHeartbeatInterval}, TTL {@code processTtl}), and the leader sweeps expired entries and diffs the
 * listing on every registration notice and every {@code checkInterval}. Bound to a store session, the session joins
 * the group once (it is the entry: it lives as long as the session, with no heartbeat of its own), and the leader
 * diffs the listing on every notice and whenever the session keeper finds that a member's session ended, which it
 * asks once for every group of the process; nothing is polled per group.
 *
 * <p>When leadership is acquired the current members are taken as a baseline without events. All mutable state is
 * confined to the election's scheduler.
 */
final class LeaseMembership implements Registry {

    private final RegistryStore store;
    private final String group;
    private final ElectionConfig config;
    private final Scheduler scheduler;
    private final Clock clock;
    private final TimedCalls calls;
    private final Consumer<ElectionEvent> emit;
    private final ErrorReport onError;
    /** The store's sessions when the election is bound to one; null with leases of their own. */
    private final SessionStore sessions;
    /** Asks the session keeper to watch the sessions of the members this leader knows. */
    private final Consumer<Set<String>> watchMemberSessions;

    /** How a failed store call is reported to the election: its kind (for the outage log), a description, the cause. */
    interface ErrorReport {
        void report(String kind, String what, Throwable cause);
    }

    private volatile NodeInfo self;

    // Confined to the scheduler.
    private boolean running;
    private boolean tracking;
    private long trackingGeneration;
    private Map<String, NodeInfo> known = Map.of();
    private Map<String, MemberState> knownStates = Map.of();
    private boolean refreshInFlight;
    private boolean refreshAgain;
    private Scheduler.Cancellable heartbeatTimer = Scheduler.Cancellable.NONE;
    private Scheduler.Cancellable refreshTimer = Scheduler.Cancellable.NONE;
    private Subscription notices;
    private SessionKeeper.Session joined;

    LeaseMembership(RegistryStore store, String group, NodeInfo self, ElectionConfig config, Scheduler scheduler,
            Clock clock, ElectionMetrics metrics, StoreLink link, Consumer<ElectionEvent> emit, ErrorReport onError) {
        this(store, null, ignored -> { }, group, self, config, scheduler, clock, metrics, link, emit, onError);
    }

    /** Membership through the store session: {@code sessions} and the keeper's member watch. */
    LeaseMembership(RegistryStore store, SessionStore sessions, Consumer<Set<String>> watchMemberSessions,
            String group, NodeInfo self, ElectionConfig config, Scheduler scheduler, Clock clock,
            ElectionMetrics metrics, StoreLink link, Consumer<ElectionEvent> emit, ErrorReport onError) {
        this.sessions = sessions;
        this.watchMemberSessions = watchMemberSessions;
        this.store = store;
        this.group = group;
        this.self = self;
        this.config = config;
        this.scheduler = scheduler;
        this.clock = clock;
        this.calls = new TimedCalls(scheduler, clock, metrics, link);
        this.emit = emit;
        this.onError = onError;
    }

    // ---- driven by the election, on its scheduler ----

    void start() {
        running = true;
        notices = store.watchMembers(group, notice -> scheduler.execute(this::onNotice));
        if (sessions == null) {
            registerSelf();
        } else if (joined != null) {
            join(joined);
        }
    }

    /** A store session is open: this process joins the group with it (once started). */
    void onSessionOpened(SessionKeeper.Session session) {
        joined = session;
        if (running) {
            join(session);
        }
    }

    /** The session ended: so did its membership; the next session joins again. */
    void onSessionLost(SessionKeeper.Session session) {
        if (joined == session) {
            joined = null;
        }
    }

    private void join(SessionKeeper.Session session) {
        calls.call("join", config.storeTimeout(), () -> sessions.join(group, session.id()), (ok, error) -> {
            if (error != null && running && joined == session) {
                onError.report("register", "joining the group failed", error);
                scheduler.schedule(config.retryInterval(), () -> {
                    if (running && joined == session) {
                        join(session);
                    }
                });
            }
        });
    }

    void onLeadershipAcquired() {
        tracking = true;
        trackingGeneration++;
        known = null;
        refresh();
    }

    void onLeadershipLost() {
        tracking = false;
        trackingGeneration++;
        refreshTimer.cancel();
        known = Map.of();
        knownStates = Map.of();
        watchMemberSessions.accept(Set.of());
    }

    /** Stops heartbeats and removes this process's entry; completes when the store answered or timed out. */
    CompletableFuture<Void> stop() {
        running = false;
        onLeadershipLost();
        heartbeatTimer.cancel();
        if (notices != null) {
            notices.close();
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        SessionKeeper.Session leaving = joined;
        if (sessions != null && leaving == null) {
            done.complete(null);
            return done;
        }
        calls.call("unregister", config.storeTimeout(), () -> sessions == null
                ? store.unregister(group, self.id()) : sessions.leave(group, leaving.id()),
                (removed, error) -> done.complete(null));
        return done;
    }

    private void registerSelf() {
        calls.call("register", config.storeTimeout(), () -> store.register(group, self, config.processTtl()),
                (ok, error) -> {
                    if (error != null) {
                        onError.report("register", "registering this process failed", error);
                    }
                    scheduleHeartbeat(error == null ? config.processHeartbeatInterval() : config.retryInterval());
                });
    }

    private void scheduleHeartbeat(Duration delay) {
        heartbeatTimer.cancel();
        if (!running) {
            return;
        }
        heartbeatTimer = scheduler.schedule(delay, this::heartbeat);
    }

    private void heartbeat() {
        if (!running) {
            return;
        }
        calls.call("heartbeat", config.storeTimeout(),
                () -> store.heartbeat(group, self.id(), config.processTtl()), (alive, error) -> {
                    if (error != null) {
                        onError.report("heartbeat", "process heartbeat failed", error);
                        scheduleHeartbeat(config.retryInterval());
                    } else if (!alive) {
                        registerSelf();
                    } else {
                        scheduleHeartbeat(config.processHeartbeatInterval());
                    }
                });
    }

    private void onNotice() {
        if (tracking) {
            refresh();
        }
    }

    private void refresh() {
        if (!tracking) {
            return;
        }
        if (refreshInFlight) {
            refreshAgain = true;
            return;
        }
        refreshInFlight = true;
        refreshAgain = false;
        refreshTimer.cancel();
        long generation = trackingGeneration;
        calls.call(sessions == null ? "sweep expired members" : "list members", config.storeTimeout(),
                this::listForDiff, (members, error) -> {
                    refreshInFlight = false;
                    if (generation != trackingGeneration) {
                        refresh();
                        return;
                    }
                    if (error != null) {
                        onError.report("list members", "listing members failed", error);
                    } else {
                        diff(members);
                    }
                    if (refreshAgain) {
                        refresh();
                    } else if (sessions == null || error != null) {
                        // Without sessions the registry is polled; with them a failed listing is tried again,
                        // since no notice may come to start another.
                        refreshTimer = scheduler.schedule(config.checkInterval(), this::refresh);
                    }
                });
    }

    /**
     * The listing a leader diffs: the registry's entries after a sweep, or the sessions that joined (whose ends the
     * session keeper is asked to watch from now on).
     */
    private CompletableFuture<List<NodeInfo>> listForDiff() {
        if (sessions == null) {
            return store.sweepExpired(group).thenCompose(swept -> store.members(group));
        }
        SessionKeeper.Session own = joined;
        return sessions.members(group).thenApply(bySession -> {
            Set<String> others = new HashSet<>(bySession.keySet());
            if (own != null) {
                others.remove(own.id());
            }
            watchMemberSessions.accept(others);
            return List.copyOf(bySession.values());
        });
    }

    /** A member's session ended (the session keeper found it): list again. */
    void onMembersEnded() {
        if (tracking) {
            refresh();
        }
    }

    /** How often a member's {@code lastSeen} moves: its heartbeat, or its session's keep-alive. */
    Duration heartbeatInterval() {
        return sessions == null ? config.processHeartbeatInterval() : config.renewInterval();
    }

    private void diff(List<NodeInfo> members) {
        Map<String, NodeInfo> now = new HashMap<>();
        Map<String, MemberState> states = new HashMap<>();
        for (MemberStatus member : health(members, heartbeatInterval())) {
            if (!member.node().id().equals(self.id())) {
                now.put(member.node().id(), member.node());
                states.put(member.node().id(), member.state());
            }
        }
        if (known != null) {
            for (NodeInfo member : members) {
                String id = member.id();
                if (!now.containsKey(id)) {
                    continue;
                }
                if (!known.containsKey(id)) {
                    emit.accept(new ElectionEvent.MemberJoined(clock.instant(), member));
                }
                MemberState before = knownStates.getOrDefault(id, MemberState.ACTIVE);
                if (states.get(id) != before) {
                    emit.accept(new ElectionEvent.MemberStateChanged(clock.instant(), member, before, states.get(id)));
                }
            }
            for (String id : known.keySet()) {
                if (!now.containsKey(id)) {
                    emit.accept(new ElectionEvent.MemberRemoved(clock.instant(), id));
                }
            }
        }
        known = now;
        knownStates = states;
    }

    /**
     * The seed's cluster monitor: a member whose last heartbeat is more than two heartbeat intervals older than the
     * newest one in the listing is {@link MemberState#UNREACHABLE} (it is removed when its entry expires). All
     * {@code lastSeen} stamps come from the store's clock, so no two clocks are compared; the newest stamp stands for
     * the store's "now", since a live member heartbeats at least every interval.
     */
    static List<MemberStatus> health(List<NodeInfo> members, Duration heartbeatInterval) {
        Instant newest = members.stream().map(NodeInfo::lastSeen).filter(Objects::nonNull).max(Instant::compareTo)
                .orElse(null);
        Duration unhealthyAfter = heartbeatInterval.multipliedBy(2);
        List<MemberStatus> result = new ArrayList<>(members.size());
        for (NodeInfo member : members) {
            boolean late = newest != null && member.lastSeen() != null
                    && Duration.between(member.lastSeen(), newest).compareTo(unhealthyAfter) > 0;
            result.add(new MemberStatus(member, late ? MemberState.UNREACHABLE : MemberState.ACTIVE));
        }
        return result;
    }

    // ---- public API, any thread ----

    @Override
    public NodeInfo self() {
        return self;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Bound to a store session, the metadata shows in the leader info from this process's next acquisition; its
     * member entry keeps the node info the session was opened with.
     */
    @Override
    public CompletableFuture<Void> setMetadata(Map<String, String> metadata) {
        self = self.withMetadata(metadata);
        if (sessions != null) {
            return CompletableFuture.completedFuture(null);
        }
        return store.register(group, self, config.processTtl());
    }

    @Override
    public CompletableFuture<Void> register(NodeInfo node) {
        return store.register(group, node, config.processTtl());
    }

    @Override
    public CompletableFuture<Boolean> heartbeat(String nodeId) {
        return store.heartbeat(group, nodeId, config.processTtl());
    }

    @Override
    public CompletableFuture<Boolean> unregister(String nodeId) {
        return store.unregister(group, nodeId);
    }

    /** The live members by id: with a store session, the sessions that joined and any entries registered by hand. */
    @Override
    public CompletableFuture<List<NodeInfo>> members() {
        if (sessions == null) {
            return store.members(group);
        }
        return sessions.members(group).thenCombine(store.members(group), (joined, registered) -> {
            Map<String, NodeInfo> byId = new TreeMap<>();
            registered.forEach(node -> byId.put(node.id(), node));
            joined.values().forEach(node -> byId.put(node.id(), node));
            return List.copyOf(byId.values());
        });
    }

    @Override
    public CompletableFuture<Optional<NodeInfo>> member(String nodeId) {
        if (sessions == null) {
            return store.member(group, nodeId);
        }
        return members().thenApply(all -> all.stream().filter(node -> node.id().equals(nodeId)).findFirst());
    }

    @Override
    public CompletableFuture<Optional<NodeInfo>> leaderInfo() {
        return store.leaderInfo(group);
    }
}

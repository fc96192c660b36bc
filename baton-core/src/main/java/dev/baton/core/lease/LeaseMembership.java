package dev.baton.core.lease;

import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.MemberState;
import dev.baton.core.MemberStatus;
import dev.baton.core.NodeInfo;
import dev.baton.core.Registry;
import dev.baton.core.store.RegistryStore;
import dev.baton.core.store.Subscription;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The process registry side of a lease election: keeps this process registered (heartbeat every
 * {@code processHeartbeatInterval}, TTL {@code processTtl}) and, while this node leads, turns registry changes into
 * member-joined / member-removed events (seed 000: {@code slave-registered} and {@code slave-removed} are emitted on
 * the master only).
 *
 * <p>When leadership is acquired the current members are taken as a baseline without events; after that, every
 * registration notice and every {@code checkInterval} the leader sweeps expired entries and diffs the listing.
 * All mutable state is confined to the election's scheduler.
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

    LeaseMembership(RegistryStore store, String group, NodeInfo self, ElectionConfig config, Scheduler scheduler,
            Clock clock, ElectionMetrics metrics, StoreLink link, Consumer<ElectionEvent> emit, ErrorReport onError) {
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
        registerSelf();
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
        calls.call("unregister", config.storeTimeout(), () -> store.unregister(group, self.id()),
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
        calls.call("sweep expired members", config.storeTimeout(), () -> store.sweepExpired(group)
                .thenCompose(swept -> store.members(group)), (members, error) -> {
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
                    } else {
                        refreshTimer = scheduler.schedule(config.checkInterval(), this::refresh);
                    }
                });
    }

    private void diff(List<NodeInfo> members) {
        Map<String, NodeInfo> now = new HashMap<>();
        Map<String, MemberState> states = new HashMap<>();
        for (MemberStatus member : health(members, config.processHeartbeatInterval())) {
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

    @Override
    public CompletableFuture<Void> setMetadata(Map<String, String> metadata) {
        self = self.withMetadata(metadata);
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

    @Override
    public CompletableFuture<List<NodeInfo>> members() {
        return store.members(group);
    }

    @Override
    public CompletableFuture<Optional<NodeInfo>> member(String nodeId) {
        return store.member(group, nodeId);
    }

    @Override
    public CompletableFuture<Optional<NodeInfo>> leaderInfo() {
        return store.leaderInfo(group);
    }
}

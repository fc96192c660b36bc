package dev.baton.work.internal.cluster;

import dev.baton.core.Election;
import dev.baton.core.LeaderInfo;
import dev.baton.core.Membership;
import dev.baton.core.Registration;
import dev.baton.core.store.Subscription;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import dev.baton.work.DetectionListener;
import dev.baton.work.ListenerRegistration;
import dev.baton.work.StoreLayout;
import dev.baton.work.WorkClusterConfig;
import dev.baton.work.WorkClusterListener;
import dev.baton.work.WorkClusterState;
import dev.baton.work.internal.reconcile.ClusterStore;
import dev.baton.work.internal.reconcile.LeaderCounters;
import dev.baton.work.internal.reconcile.LeaderRole;
import dev.baton.work.internal.reconcile.LeaderThreads;
import dev.baton.work.internal.reconcile.UserHooks;
import dev.baton.work.internal.reconcile.WorkerFleet;
import dev.baton.work.internal.route.BusMessage;
import dev.baton.work.worker.WorkerMessage;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * This process's part of a work cluster, behind the {@code WorkCluster} facade: its channel and the results and
 * answers that come on it, its requests to the leader, its listeners and their announcement, and, while it leads,
 * the leader's role. The same on the leader and on every other process.
 */
public final class ClusterProcess {

    private final Election election;
    private final ClusterStore shared;
    private final Membership membership;
    private final WorkClusterConfig config;
    private final StoreLayout layout;
    private final WorkerFleet fleet;
    private final Scheduler scheduler;
    private final boolean ownScheduler;
    private final BooleanSupplier started;
    private final LocalListeners listeners;
    private final EventFanOut fanOut;
    private final LeaderClient client;
    private final ListenerAnnouncer announcer;
    private final ResultInbox inbox;
    private final LeaderSwitch leader;
    private Subscription channel;
    private Registration electionRegistration;

    /**
     * @param incarnation tells this run of the process from an earlier one with the same id
     * @param started     whether the facade is started (nothing is announced or led otherwise)
     */
    public ClusterProcess(Election election, ClusterStore shared, Membership membership, WorkClusterConfig config,
                          ClusterThreads threads, Clock clock, LeaderThreads leaderThreads, WorkerFleet fleet,
                          UserHooks hooks, long incarnation, BooleanSupplier started) {
        this.election = election;
        this.shared = shared;
        this.membership = membership;
        this.config = config;
        this.layout = config.layout();
        this.fleet = fleet;
        this.scheduler = threads.scheduler();
        this.ownScheduler = threads.ownScheduler();
        this.started = started;
        String group = shared.group();
        String processId = shared.processId();
        this.listeners = new LocalListeners(processId, incarnation,
                version -> scheduler.execute(() -> announcer().announce(false)));
        this.fanOut = new EventFanOut(listeners, threads.listenerExecutor());
        this.leader = new LeaderSwitch(shared, config, membership, leaderThreads, fleet, hooks, fanOut, ownScheduler,
                started, () -> announcer().announce(true));
        this.client = new LeaderClient(group, processId, incarnation, shared.bus(), shared.codec(), scheduler, clock,
                config, leader::role, () -> election.leader().map(LeaderInfo::term).orElse(0L));
        this.announcer = new ListenerAnnouncer(group, processId, listeners, client, scheduler,
                config.listenerRefreshInterval(), started);
        this.inbox = new ResultInbox(group, processId, shared.bus(), shared.codec(), scheduler, clock, config,
                new ResultInbox.Sink() {
                    @Override
                    public void result(String workerUrl, WorkerMessage.ImageDetection detection, boolean global) {
                        fanOut.deliver(workerUrl, detection, global);
                    }

                    @Override
                    public void ack(BusMessage.Ack ack) {
                        leader.acked(ack);
                    }

                    @Override
                    public void answer(BusMessage.Response response) {
                        client.answered(response);
                    }
                });
    }

    private ListenerAnnouncer announcer() {
        return announcer;
    }

    /** Listens on this process's channel and to the election; leads at once if the election already leads. */
    public void start() {
        channel = shared.bus().subscribe(layout.processChannel(shared.processId()),
                bytes -> scheduler.execute(() -> {
                    if (started.getAsBoolean()) {
                        inbox.received(bytes);
                    }
                }));
        electionRegistration = election.addListener(leader::onElectionEvent);
        scheduler.execute(() -> {
            election.leadership().ifPresent(leader::start);
            announcer.start();
        });
    }

    /**
     * Stops this process's part: a leader stops leading, requests still waiting fail. With the cluster's own
     * scheduler, waits (up to {@code stopTimeout}) until that is done.
     */
    public void close() {
        if (electionRegistration != null) {
            electionRegistration.close();
        }
        leader.deactivate();
        CompletableFuture<Void> done = new CompletableFuture<>();
        scheduler.execute(() -> {
            leader.stop("the work cluster was closed");
            client.closeAll();
            announcer.close();
            if (channel != null) {
                channel.close();
            }
            scheduler.execute(() -> done.complete(null)); // after the connections' close tasks
        });
        if (ownScheduler) {
            LeaderSwitch.await(done, config.stopTimeout());
        }
    }

    /** Sends a request (built for the request id given) to the leader; completes with the answer's value. */
    public CompletableFuture<Long> request(Function<String, BusMessage.Request> build, String what) {
        return client.request(build, what);
    }

    /** Adds a per-item listener; the registration's {@code routed()} completes once the leader recorded it. */
    public ListenerRegistration addDetectionListener(String item, DetectionListener listener) {
        long version = listeners.add(item, listener);
        return announcer.registration(version, () -> listeners.remove(item, listener));
    }

    /** Adds a global listener. */
    public ListenerRegistration addGlobalDetectionListener(DetectionListener listener) {
        long version = listeners.addGlobal(listener);
        return announcer.registration(version, () -> listeners.removeGlobal(listener));
    }

    /** Removes this process's per-item listeners of {@code items}. */
    public void removeListeners(Set<String> items) {
        listeners.removeAll(items);
    }

    /** The items this process has per-item listeners for. */
    public Set<String> listenedItems() {
        return listeners.items();
    }

    /** Adds a listener for the cluster's events. */
    public Registration addListener(WorkClusterListener listener) {
        return fanOut.addListener(listener);
    }

    /**
     * Reloads the desired state now if this process leads (and returns true); false if another process must be
     * told.
     */
    public boolean regenerateHere(String reason) {
        LeaderRole current = leader.role();
        if (current != null && current.isActive()) {
            scheduler.execute(() -> current.regenerate(reason));
            return true;
        }
        return false;
    }

    /** Whether this process leads the work cluster now. */
    public boolean isLeading() {
        return leader.isLeading();
    }

    /** The cluster as the store records it, as seen by this process. */
    public CompletableFuture<WorkClusterState> state() {
        return StateReader.read(shared.maps(), membership, shared.group(), layout, fleet.urls())
                .thenApply(read -> read.as(shared.processId(), leader.isLeading()));
    }

    /** This process's counters by name (see {@code WorkCluster.counters()}); completes on the scheduler. */
    public CompletableFuture<Map<String, Long>> counters() {
        CompletableFuture<Map<String, Long>> result = new CompletableFuture<>();
        scheduler.execute(() -> {
            Map<String, Long> c = new TreeMap<>();
            c.put("badMessages", inbox.badMessages());
            c.put("results", inbox.results());
            c.put("duplicates", inbox.duplicates());
            LeaderCounters leading = leader.counters();
            if (leading != null) {
                c.putAll(leading.asMap());
            }
            result.complete(c);
        });
        return result;
    }
}

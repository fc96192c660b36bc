package dev.baton.work.internal.reconcile;

import dev.baton.work.WorkClusterConfig;
import dev.baton.core.Membership;
import dev.baton.core.NodeInfo;
import dev.baton.core.store.FencedValue;
import dev.baton.core.time.Scheduler;
import dev.baton.work.internal.route.BusProtocolException;
import dev.baton.work.internal.route.ListenerCard;
import dev.baton.work.internal.route.OutboundStreams;
import dev.baton.work.internal.route.ProcessAssigner;
import dev.baton.work.internal.route.RoutingTable;
import dev.baton.work.internal.worker.InboundLimit;
import dev.baton.work.worker.WorkerMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's half of result routing (seed 001's "Master finds assigned slave"): the listener cards of every
 * process, the worker -> process assignment ({@code worker:assignments}, rebalanced when processes join or leave or
 * gain or lose global listeners; a process whose registry capabilities say {@code canProcessDetections: false} owns
 * no worker), and at-least-once streams to each process. Runs on the leader's scheduler.
 *
 * <p>Results for one process read in one burst are published together ({@code maxResultsPerMessage}). Each result
 * being published and each result waiting for this process's listeners holds a unit of the workers'
 * {@link InboundLimit}, so a slow store or slow listeners stop the leader reading worker sockets instead of piling
 * results up.
 */
final class ResultRouter {

    private static final Logger log = LoggerFactory.getLogger(ResultRouter.class);

    private final ClusterStore shared;
    private final WorkClusterConfig config;
    private final LeaderThreads threads;
    private final Membership membership;
    private final List<String> workerUrls;
    private final LocalOutput local;
    private final TermWriter writer;
    private final RoutingTable table = new RoutingTable();
    private final OutboundStreams outbound;
    private final InboundLimit inbound;
    private final Map<String, Long> absentSince = new HashMap<>();
    // The worker -> process assignment as the store has it, as far as this leader knows: what it loaded and what its
    // writes were accepted for. Whatever the table says and this does not is written again at every refresh, so a
    // write that failed, or was not sent while the leadership was past its deadline, does not leave the store
    // behind for good.
    private final Map<String, String> recorded = new TreeMap<>();
    private Set<String> live = new TreeSet<>();
    private Set<String> declining = new TreeSet<>();
    private boolean membersKnown;
    private Scheduler.Cancellable resendTimer = Scheduler.Cancellable.NONE;
    private Scheduler.Cancellable membersTimer = Scheduler.Cancellable.NONE;
    private boolean stopped;
    private boolean flushQueued;
    private long stoppedAt;

    ResultRouter(ClusterStore shared, WorkClusterConfig config, LeaderThreads threads, Membership membership,
                 List<String> workerUrls, LocalOutput local, TermWriter writer, InboundLimit inbound) {
        this.shared = shared;
        this.config = config;
        this.threads = threads;
        this.membership = membership;
        this.workerUrls = workerUrls;
        this.local = local;
        this.writer = writer;
        this.inbound = inbound;
        this.outbound = new OutboundStreams(shared.group(), shared.processId(), "term-" + writer.term(), shared.codec(),
                new OutboundStreams.Publisher() {
                    @Override
                    public void publish(String processId, byte[] message) {
                        ResultRouter.this.publish(processId, message, 1);
                    }

                    @Override
                    public void publish(String processId, byte[] message, int results) {
                        ResultRouter.this.publish(processId, message, results);
                    }
                },
                threads.clock(), config.resendAfter(), config.maxUnackedPerProcess(), config.maxResultsPerMessage());
    }

    private CompletableFuture<Long> publish(String process, byte[] bytes, int results) {
        inbound.hold(results);
        CompletableFuture<Long> sent;
        try {
            sent = shared.bus().publish(config.layout().processChannel(process), bytes);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.handle((n, e) -> {
            inbound.release(results);
            if (e != null) {
                log.debug("could not publish a result to {}: {}", process, e.toString());
                return -1L;
            }
            return n;
        });
    }

    private void deliverLocally(String workerUrl, WorkerMessage.ImageDetection detection, boolean global) {
        inbound.hold();
        local.deliver(workerUrl, detection, global, () -> inbound.release(1));
    }

    /** Loads the stored cards and assignment, then reads the registry; starts the resend and registry timers. */
    void start() {
        String group = shared.group();
        CompletableFuture<SortedMap<String, FencedValue>> cards =
                shared.maps().mapEntries(group, config.layout().listenersMap());
        CompletableFuture<SortedMap<String, FencedValue>> assignments =
                shared.maps().mapEntries(group, config.layout().assignmentsMap());
        CompletableFuture.allOf(cards, assignments).whenComplete((ok, error) -> threads.scheduler().execute(() -> {
            if (stopped) {
                return;
            }
            if (error != null) {
                log.warn("could not read the stored listener cards or worker assignments ({}); starting without",
                        error.toString());
            } else {
                cards.join().forEach((process, value) -> {
                    try {
                        ListenerCard card = shared.codec().decodeCard(value.value());
                        if (table.card(card.processId()) == null) { // an announcement that came first is newer
                            table.offer(card);
                        }
                    } catch (BusProtocolException e) {
                        log.warn("stored listener card of process {} is unreadable ({}); ignored", process,
                                e.getMessage());
                    }
                });
                Map<String, String> stored = new TreeMap<>();
                assignments.join().forEach((worker, value) ->
                        stored.put(worker, new String(value.value(), StandardCharsets.UTF_8)));
                table.setAssignment(stored);
                recorded.putAll(stored);
            }
            refreshMembers();
        }));
        scheduleResend();
        scheduleMembers();
    }

    private void scheduleResend() {
        resendTimer = threads.scheduler().schedule(config.resendAfter().dividedBy(2), () -> {
            try {
                outbound.resendDue();
            } finally {
                // Even after an exception in this round: resends must go on until drained or given up.
                if (!stopped || (outbound.pending() > 0
                        && threads.clock().nanoTime() - stoppedAt < config.drainTimeout().toNanos())) {
                    scheduleResend();
                } // else drained, or gave up: the next leader has the workers now
            }
        });
    }

    private void scheduleMembers() {
        membersTimer = threads.scheduler().schedule(config.membershipRefreshInterval(), () -> {
            if (!stopped) {
                scheduleMembers(); // first: an exception in this refresh must not end the periodic refresh
                refreshMembers();
            }
        });
    }

    /** Stops routing new results; already routed ones are re-sent until acknowledged or the drain timeout. */
    void stop() {
        stopped = true;
        stoppedAt = threads.clock().nanoTime();
        membersTimer.cancel();
    }

    /** Routes one result to every process that should have it. */
    void route(String workerUrl, WorkerMessage.ImageDetection detection) {
        if (stopped) {
            return;
        }
        String timestamp = null;
        for (RoutingTable.Target target : table.targets(workerUrl, detection.subscriptionIdentifier())) {
            if (target.processId().equals(shared.processId())) {
                deliverLocally(workerUrl, detection, target.global());
            } else {
                if (timestamp == null) {
                    timestamp = threads.clock().instant().toString();
                }
                outbound.send(target.processId(), target.global(), workerUrl, timestamp, detection);
            }
        }
        flushLater();
    }

    /**
     * Publishes the results waiting in the outboxes once the scheduler has run what is queued now: the results of
     * worker messages read in one burst go out together, and a lone result goes out at once.
     */
    private void flushLater() {
        if (!flushQueued && outbound.hasUnflushed()) {
            flushQueued = true;
            threads.scheduler().execute(() -> {
                flushQueued = false;
                outbound.flush();
            });
        }
    }

    /** A process acknowledged results of one of this leader's streams. */
    void acked(String process, String stream, long upTo) {
        outbound.acked(process, stream, upTo);
    }

    /**
     * Takes a process's listener card; the future completes once it is stored (or at once if it changes nothing),
     * and fails if the store write failed.
     */
    CompletableFuture<Void> offer(ListenerCard card) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        ListenerCard before = table.card(card.processId());
        if (!table.offer(card)) {
            done.complete(null);
            return done;
        }
        absentSince.remove(card.processId());
        if (before == null || before.global() != card.global()) {
            rebalance();
        }
        writer.put(config.layout().listenersMap(), card.processId(), shared.codec().encodeCard(card),
                () -> done.complete(null), done::completeExceptionally);
        return done;
    }

    /** Re-reads the process registry: forgets processes gone for a while, rebalances the assignment. */
    void refreshMembers() {
        membership.members().whenComplete((members, error) -> threads.scheduler().execute(() -> {
            if (stopped) {
                return;
            }
            if (error != null) {
                log.debug("could not read the process registry: {}", error.toString());
                return;
            }
            Set<String> now = new TreeSet<>();
            Set<String> noDetections = new TreeSet<>();
            for (NodeInfo member : members) {
                now.add(member.id());
                if (!member.capabilities().canProcessDetections()) {
                    noDetections.add(member.id());
                }
            }
            declining = noDetections;
            now.add(shared.processId());
            membersChanged(now);
        }));
    }

    private void membersChanged(Set<String> now) {
        Set<String> gone = new HashSet<>(live);
        gone.removeAll(now);
        live = now;
        membersKnown = true;
        for (String process : gone) {
            reroute(process);
        }
        // A card of a process not in the registry is dropped once it has been absent for a refresh interval twice:
        // a process announces its card right after it registers, so a brief absence is not a departure.
        long t = threads.clock().nanoTime();
        long grace = config.membershipRefreshInterval().toNanos() * 2;
        for (String process : table.processes()) {
            if (now.contains(process)) {
                absentSince.remove(process);
                continue;
            }
            long since = absentSince.computeIfAbsent(process, p -> t);
            if (t - since >= grace) {
                absentSince.remove(process);
                table.remove(process);
                reroute(process);
                writer.remove(config.layout().listenersMap(), process, existed -> { },
                        e -> log.debug("could not remove the listener card of {}: {}", process, e.toString()));
            }
        }
        rebalance();
    }

    /** A process left: its results for global listeners go to the process that owns their worker now. */
    private void reroute(String process) {
        List<OutboundStreams.Pending> pending = outbound.dropProcess(process);
        if (pending.isEmpty()) {
            return;
        }
        rebalance();
        for (OutboundStreams.Pending p : pending) {
            String owner = table.ownerOf(p.workerUrl());
            if (owner == null || !table.hasGlobal(owner)) {
                continue;
            }
            if (owner.equals(shared.processId())) {
                deliverLocally(p.workerUrl(), p.data(), true);
            } else {
                outbound.send(owner, true, p.workerUrl(), p.timestamp(), p.data());
            }
        }
        flushLater();
    }

    /** Recomputes {@code worker:assignments} over the live processes and records what the store lacks. */
    private void rebalance() {
        if (!membersKnown) {
            return;
        }
        Map<String, String> before = table.assignment();
        Set<String> candidates = new TreeSet<>(live);
        candidates.removeAll(declining);
        Map<String, String> after = ProcessAssigner.assign(workerUrls, table.owners(candidates), before);
        if (!after.equals(before)) {
            table.setAssignment(after);
            log.info("worker assignments: {}", after);
        }
        record(after);
    }

    /** Writes every entry of {@code assignment} the store is not known to have, and removes the ones it should not. */
    private void record(Map<String, String> assignment) {
        String map = config.layout().assignmentsMap();
        for (Map.Entry<String, String> e : assignment.entrySet()) {
            String worker = e.getKey();
            String process = e.getValue();
            if (!process.equals(recorded.get(worker))) {
                writer.put(map, worker, process.getBytes(StandardCharsets.UTF_8), () -> recorded.put(worker, process),
                        error -> log.debug("could not record the assignment of {}: {}", worker, error.toString()));
            }
        }
        for (String worker : new ArrayList<>(recorded.keySet())) {
            if (!assignment.containsKey(worker)) {
                writer.remove(map, worker, existed -> recorded.remove(worker),
                        error -> log.debug("could not remove the assignment of {}: {}", worker, error.toString()));
            }
        }
    }

    /** Results routed, re-sent, dropped unacknowledged and waiting for an acknowledgement. */
    record Counters(long routed, long resent, long droppedUnacked, long waitingAck) { }

    /** Results sent, re-sent, dropped and waiting, for tests and metrics. */
    Counters counters() {
        return new Counters(outbound.sent(), outbound.resent(), outbound.dropped(), outbound.pending());
    }
}

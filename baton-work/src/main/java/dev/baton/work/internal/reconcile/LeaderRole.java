package dev.baton.work.internal.reconcile;

import dev.baton.work.WorkClusterConfig;
import dev.baton.core.Membership;
import dev.baton.core.Leadership;
import dev.baton.core.Registration;
import dev.baton.core.store.FencedValue;
import dev.baton.core.store.Subscription;
import dev.baton.work.SubscriptionIdentifier;
import dev.baton.work.WorkItemJson;
import dev.baton.work.internal.route.BadMessageLog;
import dev.baton.work.internal.route.BusMessage;
import dev.baton.work.internal.route.BusProtocolException;
import dev.baton.work.worker.WorkerMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything this process does while it leads one term (seed 001's master mode): holds the worker connections
 * ({@link WorkerPool}), reconciles ({@link Reconciler}), routes results ({@link ResultRouter}) and serves the
 * processes' requests on {@code worker:master:commands}. Created on {@code LeadershipAcquired}, stopped on
 * {@code LeadershipLost} or as soon as the store refuses one of its writes (a newer term exists).
 *
 * <p>Every method except {@link #deactivate()} runs on the environment's scheduler. After {@link #deactivate()}
 * (which any thread may call, e.g. the election's listener) nothing new is written or sent; {@link #stop(String)}
 * then closes the connections.
 */
public final class LeaderRole {

    private static final Logger log = LoggerFactory.getLogger(LeaderRole.class);
    private static final int ANSWERS_KEPT = 10_000;
    /** Stands in {@link #sourceWatch} once the role stopped, so a watch that starts late is closed at once. */
    private static final Registration NO_MORE_WATCHES = () -> { };

    private final ClusterStore shared;
    private final WorkClusterConfig config;
    private final LeaderThreads threads;
    private final WorkerFleet fleet;
    private final UserHooks hooks;
    private final Leadership leadership;
    private final Consumer<LeaderRole> onStopped;
    private final TermWriter writer;
    private final WorkerPool pool;
    private final Reconciler reconciler;
    private final ResultRouter router;
    private final BadMessageLog badCommands;
    private final Map<CompletableFuture<BusMessage.Response>, BusMessage.Request> open = new HashMap<>();
    // Requests under way or answered, by id: a copy of one (a retry, or a copy held up on the way) gets the same
    // answer without being applied again. The oldest are forgotten beyond ANSWERS_KEPT.
    private final Map<String, CompletableFuture<BusMessage.Response>> answers = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, CompletableFuture<BusMessage.Response>> eldest) {
            return size() > ANSWERS_KEPT;
        }
    };
    private volatile boolean active;
    private boolean stopped;
    private Subscription commands;
    // The desired state source's change watch: set on the source executor, taken (and closed) by stop().
    private final AtomicReference<Registration> sourceWatch = new AtomicReference<>();

    /**
     * @param shared     the group's store, as this process
     * @param membership the group's process registry (to assign workers to processes)
     * @param hooks      the user's code: desired state source, assignment hook, session handler
     * @param local      where events and this process's own results go
     * @param onStopped  told (on the scheduler) when the role stops by itself, because the store refused its term
     */
    public LeaderRole(ClusterStore shared, WorkClusterConfig config, Membership membership, LeaderThreads threads,
                      WorkerFleet fleet, UserHooks hooks, LocalOutput local, Leadership leadership,
                      Consumer<LeaderRole> onStopped) {
        this.shared = shared;
        this.config = config;
        this.threads = threads;
        this.fleet = fleet;
        this.hooks = hooks;
        this.leadership = leadership;
        this.onStopped = onStopped;
        this.writer = new TermWriter(shared.maps(), shared.group(), shared.processId(), leadership.term(), threads.scheduler(),
                () -> active, leadership::isValid, this::deposed);
        this.pool = new WorkerPool(shared.processId(), config, threads, fleet, local, writer, this::isActive, new WorkerPool.Callbacks() {
            @Override
            public void availabilityChanged(String url) {
                reconciler.availabilityChanged();
            }

            @Override
            public void reported(String url, boolean changed) {
                reconciler.reported(url, changed);
            }

            @Override
            public void detection(String url, WorkerMessage.ImageDetection detection) {
                if (active && reconciler.isDesired(detection.subscriptionIdentifier())) {
                    router.route(url, detection);
                }
            }

            @Override
            public void patchSession(String url, WorkerMessage.PatchSession patch) {
                answerPatch(url, patch);
            }

            @Override
            public void drainAnnounced(String url, String reason) {
                if (active) {
                    reconciler.drain(url, reason == null ? "announced by the worker" : "announced by the worker: "
                            + reason, true, known -> { }, e -> log.warn("could not record the drain {} announced: {}",
                            url, e.toString()));
                }
            }

            @Override
            public void connectionOpened(String url) {
                if (active) {
                    reconciler.connectionOpened(url);
                }
            }
        });
        this.reconciler = new Reconciler(shared, config, threads, hooks, local, writer, pool, () -> active);
        this.router = new ResultRouter(shared, config, threads, membership, fleet.urls(), local, writer,
                pool.inboundLimit());
        this.badCommands = new BadMessageLog(log, "channel " + config.layout().commandsChannel(), threads.clock(),
                config.badMessageLogInterval());
    }

    /** The term this role leads. */
    public long term() {
        return leadership.term();
    }

    /**
     * Whether the role may act now: started, not deactivated, and its leadership valid now. A process frozen past
     * its leadership's local deadline runs what queued up meanwhile before the election's deadline timer can tell
     * it, and the store may have a newer leader by then: none of that may write ({@link TermWriter} fails such
     * writes) or reach a worker ({@link WorkerPool}'s sockets), and requests are refused. It is not the end of the
     * role: a renewal sent before the freeze may still extend the leadership, and the role goes on.
     */
    public boolean isActive() {
        return active && leadership.isValid();
    }

    /** Starts leading: listens for commands, connects to the workers, loads the stored state. */
    public void start() {
        if (active || stopped) {
            return;
        }
        if (!leadership.isValid()) {
            log.info("leadership of term {} ended before the work cluster started leading", leadership.term());
            stopped = true;
            return;
        }
        active = true;
        log.info("leading the work cluster in term {}: {} workers", leadership.term(), fleet.urls().size());
        commands = shared.bus().subscribe(config.layout().commandsChannel(),
                bytes -> threads.scheduler().execute(() -> onCommand(bytes)));
        pool.start();
        router.start();
        reconciler.start();
        threads.sourceExecutor().execute(this::watchSource);
    }

    /** On the source executor: asks the source to signal changes, which reload the desired state at once. */
    private void watchSource() {
        Registration watch;
        try {
            watch = hooks.source().watch(() -> threads.scheduler().execute(
                    () -> regenerate("the desired state source changed")));
        } catch (RuntimeException e) {
            log.warn("the desired state source could not start watching for changes ({}); it is reloaded at the "
                    + "reconcile interval", e.toString());
            return;
        }
        if (!sourceWatch.compareAndSet(null, watch)) {
            watch.close();
        }
    }

    /** Stops acting at once; any thread. Nothing is written or sent after this returns. */
    public void deactivate() {
        active = false;
    }

    /** Stops leading: closes the connections and the command subscription; routed results drain. Idempotent. */
    public void stop(String reason) {
        active = false;
        if (stopped) {
            return;
        }
        stopped = true;
        log.info("stopped leading the work cluster (term {}): {}", leadership.term(), reason);
        if (commands != null) {
            commands.close();
        }
        reconciler.stop();
        router.stop();
        pool.close();
        Registration watch = sourceWatch.getAndSet(NO_MORE_WATCHES);
        if (watch != null) {
            try {
                threads.sourceExecutor().execute(watch::close);
            } catch (RejectedExecutionException e) {
                watch.close();  // the cluster is closing its executors: close here rather than leak the watch
            }
        }
        for (var e : new ArrayList<>(open.entrySet())) {
            e.getKey().complete(refusal(e.getValue(), true, "the leader stepped down: " + reason));
        }
        open.clear();
    }

    private void deposed(String reason) {
        log.warn("work cluster leader of term {} deposed: {}", leadership.term(), reason);
        stop(reason);
        onStopped.accept(this);
    }

    /** Reloads the desired state and reconciles (the seed's {@code regenerate_subscriptions}). */
    public void regenerate(String reason) {
        if (isActive()) {
            reconciler.regenerate(reason);
        }
    }

    /** The process registry may have changed: rebalance the worker -> process assignment. */
    public void membersChanged() {
        if (isActive()) {
            router.refreshMembers();
        }
    }

    /** A process acknowledged results routed by this role (also after it stopped, while they drain). */
    public void acked(String process, String stream, long upTo) {
        router.acked(process, stream, upTo);
    }

    /**
     * Counters for tests and metrics: results routed, re-sent, dropped unacknowledged, waiting for an
     * acknowledgement; desired items, recorded items, items in flight, rounds run; bad commands dropped.
     */
    public LeaderCounters counters() {
        ResultRouter.Counters r = router.counters();
        Reconciler.Counters c = reconciler.counters();
        return new LeaderCounters(r.routed(), r.resent(), r.droppedUnacked(), r.waitingAck(), c.desired(),
                c.recorded(), c.inFlight(), c.rounds(), badCommands.count());
    }

    private void onCommand(byte[] bytes) {
        if (!isActive()) {
            return;
        }
        BusMessage message;
        try {
            message = shared.codec().decode(bytes);
        } catch (BusProtocolException e) {
            badCommands.dropped(e.getMessage());
            return;
        }
        if (!shared.group().equals(message.group())) {
            return; // another work cluster sharing the store's channels
        }
        if (message instanceof BusMessage.Regenerate r) {
            regenerate("regenerate_subscriptions from " + r.triggeredBy() + ": " + r.reason());
        } else if (message instanceof BusMessage.Request request) {
            handle(request).thenAccept(response -> shared.bus().publish(
                    config.layout().processChannel(request.replyTo()), shared.codec().encode(response)));
        } else {
            badCommands.dropped("a " + message.type() + " message does not belong on the commands channel");
        }
    }

    /**
     * Serves a request from a process (this one included); the answer never fails, it says what went wrong. A copy
     * addressed to another term is refused (retryable: its sender asks the leader it knows next); a copy of a request
     * under way or answered gets that answer and is not applied again.
     */
    public CompletableFuture<BusMessage.Response> handle(BusMessage.Request request) {
        CompletableFuture<BusMessage.Response> answer = new CompletableFuture<>();
        if (!isActive()) {
            answer.complete(refusal(request, true, "not the leader"));
            return answer;
        }
        if (request.term() != 0 && request.term() != leadership.term()) {
            answer.complete(refusal(request, true, "sent to the leader of term " + request.term()
                    + "; this leader's term is " + leadership.term()));
            return answer;
        }
        CompletableFuture<BusMessage.Response> earlier = answers.get(request.requestId());
        if (earlier != null) {
            return earlier;
        }
        answers.put(request.requestId(), answer);
        open.put(answer, request);
        answer.whenComplete((r, e) -> {
            open.remove(answer);
            if (r == null || !r.ok()) {
                answers.remove(request.requestId(), answer); // not done: a later copy may try again
            }
        });
        String itemsMap = config.layout().itemsMap();
        if (request instanceof BusMessage.SubscribeItem s) {
            writer.put(itemsMap, s.item().subscriptionIdentifier(), WorkItemJson.toJson(s.item()), () -> {
                reconciler.itemStored(s.item());
                answer.complete(ok(request, 1));
            }, e -> answer.complete(refusal(request, true, "the store failed: " + e)));
        } else if (request instanceof BusMessage.UnsubscribeItem u) {
            writer.remove(itemsMap, u.subscriptionIdentifier(), existed -> {
                reconciler.itemRemoved(u.subscriptionIdentifier());
                answer.complete(ok(request, existed ? 1 : 0));
            }, e -> answer.complete(refusal(request, true, "the store failed: " + e)));
        } else if (request instanceof BusMessage.UnsubscribeCamera u) {
            unsubscribeCamera(u, answer);
        } else if (request instanceof BusMessage.SetSession s) {
            answer.complete(ok(request, setSession(s.subscriptionIdentifier(), s.sessionId()) ? 1 : 0));
        } else if (request instanceof BusMessage.DrainWorker d) {
            Consumer<Boolean> done = known -> answer.complete(ok(request, known ? 1 : 0));
            Consumer<Throwable> failed = e -> answer.complete(refusal(request, true, "the store failed: " + e));
            if (d.drain()) {
                reconciler.drain(d.workerUrl(), d.reason() == null ? "asked by " + d.replyTo() : d.reason(), false,
                        done, failed);
            } else {
                reconciler.undrain(d.workerUrl(), done, failed);
            }
        } else if (request instanceof BusMessage.Listeners l) {
            router.offer(l.card()).whenComplete((ok, e) -> threads.scheduler().execute(() -> answer.complete(e == null
                    ? ok(request, l.card().version())
                    : refusal(request, true, "the store failed: " + e))));
        } else {
            // The bus codec builds only the requests above; another one is a bug here, not a sender's fault.
            answer.complete(refusal(request, false, "no handling for a " + request.type() + " request"));
            throw new IllegalStateException("no handling for request " + request.getClass().getName());
        }
        return answer;
    }

    private void unsubscribeCamera(BusMessage.UnsubscribeCamera u, CompletableFuture<BusMessage.Response> answer) {
        String itemsMap = config.layout().itemsMap();
        shared.maps().mapEntries(shared.group(), itemsMap).whenComplete((entries, error) -> threads.scheduler().execute(() -> {
            if (!active) {
                return;
            }
            if (error != null) {
                answer.complete(refusal(u, true, "the store failed: " + error));
                return;
            }
            List<String> ids = matching(entries, u.cameraId());
            if (ids.isEmpty()) {
                answer.complete(ok(u, 0));
                return;
            }
            int[] left = {ids.size()};
            int[] removed = {0};
            for (String id : ids) {
                writer.remove(itemsMap, id, existed -> {
                    reconciler.itemRemoved(id);
                    removed[0] += existed ? 1 : 0;
                    if (--left[0] == 0) {
                        answer.complete(ok(u, removed[0]));
                    }
                }, e -> answer.complete(refusal(u, true, "the store failed: " + e)));
            }
        }));
    }

    private static List<String> matching(SortedMap<String, FencedValue> entries, String cameraId) {
        List<String> ids = new ArrayList<>();
        for (String id : entries.keySet()) {
            if (SubscriptionIdentifier.isOfCamera(id, cameraId)) {
                ids.add(id);
            }
        }
        return ids;
    }

    private boolean setSession(String item, Long sessionId) {
        String worker = reconciler.workerOf(item);
        if (worker == null || !pool.isOnline(worker)) {
            return false;
        }
        String display;
        try {
            display = SubscriptionIdentifier.parse(item).displayId();
        } catch (IllegalArgumentException e) {
            display = item;
        }
        pool.setSessionId(worker, display, sessionId);
        return true;
    }

    private void answerPatch(String url, WorkerMessage.PatchSession patch) {
        CompletableFuture.supplyAsync(() -> {
            try {
                return hooks.sessions().patch(patch.sessionId(), patch.data()) ? "" : "refused";
            } catch (Exception e) {
                return e.getMessage() == null ? e.toString() : e.getMessage();
            }
        }, threads.sourceExecutor()).thenAccept(problem -> threads.scheduler().execute(() -> {
            if (isActive()) {
                pool.patchSessionResult(url, patch.sessionId(), problem.isEmpty(),
                        problem.isEmpty() ? null : problem);
            }
        }));
    }

    private BusMessage.Response ok(BusMessage.Request request, long value) {
        return new BusMessage.Response(shared.group(), request.requestId(), true, false, value, null);
    }

    private BusMessage.Response refusal(BusMessage.Request request, boolean retryable, String error) {
        return new BusMessage.Response(shared.group(), request.requestId(), false, retryable, 0, error);
    }
}

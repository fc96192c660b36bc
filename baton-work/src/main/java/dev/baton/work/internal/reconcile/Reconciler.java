package dev.baton.work.internal.reconcile;

import dev.baton.work.WorkClusterConfig;
import dev.baton.core.store.FencedValue;
import dev.baton.core.time.Scheduler;
import dev.baton.work.ActualSubscription;
import dev.baton.work.InvalidWorkItemException;
import dev.baton.work.WorkClusterEvent;
import dev.baton.work.WorkItem;
import dev.baton.work.WorkItemJson;
import dev.baton.work.plan.Planner;
import dev.baton.work.internal.worker.WorkerCommand;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's reconciler (seed 001's {@code regenerateDesiredStateFromDatabase} and
 * {@code rebalanceCameraSubscriptions}):
 * keeps the desired items (the store's items and the {@code DesiredStateSource}'s, reloaded whole on every notice and
 * interval) and the actual state ({@code worker:actual_subscriptions}, loaded from the store when the leadership
 * starts), runs {@link Reconciliation} rounds and carries out their actions: the store write first, under the term,
 * then the commands to the workers, so a deposed leader sends nothing the store did not accept. Per-item retries
 * back off exponentially. Runs on the leader's scheduler.
 *
 * <p>Drains: a worker being drained (by an operator, kept in {@code worker:draining} so the next leader goes on
 * with it, or announced by the worker itself, until the leader next opens a connection to it: a worker that
 * announced its drain and went away is not given the restart grace) gets nothing new, and its items move. Planned
 * moves (a drain, a rebalance) are make-before-break: each item is recorded on and subscribed to its new worker,
 * and stopped on the old one only once the new worker's report confirms it ({@link #handovers}).
 */
final class Reconciler {

    private static final Logger log = LoggerFactory.getLogger(Reconciler.class);

    private final ClusterStore shared;
    private final WorkClusterConfig config;
    private final LeaderThreads threads;
    private final UserHooks hooks;
    private final LocalOutput local;
    private final TermWriter writer;
    private final WorkerPool pool;
    private final BooleanSupplier active;
    private final Reconciliation logic;
    private final Backoff backoff;
    private final String actualMap;
    private final String drainingMap;
    private static final ObjectMapper JSON = new ObjectMapper();

    private Map<String, WorkItem> storeItems;
    // Store items this leader wrote or removed while a load was under way: the load may have read before the write,
    // so they are applied again on top of what it read (null: removed).
    private final Map<String, WorkItem> changedWhileLoading = new HashMap<>();
    private Map<String, WorkItem> sourceItems;
    private Map<String, WorkItem> desired;
    private final Map<String, ActualSubscription> actual = new HashMap<>();
    private final Set<String> unconfirmed = new HashSet<>();
    // Workers being drained -> why; and items in a planned move, not yet confirmed on the new worker -> the old one.
    private final Map<String, Drain> draining = new TreeMap<>();
    private final Map<String, String> handovers = new HashMap<>();
    private boolean actualLoaded;
    private boolean settled;
    private final Map<String, String> inFlight = new HashMap<>();
    private final Map<String, Long> notBefore = new HashMap<>();
    private final Map<String, Integer> attempts = new HashMap<>();
    private final Map<String, Long> lastSent = new HashMap<>();
    private final Map<String, Long> lastUnsubscribed = new HashMap<>();
    private boolean regenerating;
    private boolean regenerateAgain;
    private boolean roundQueued;
    private long wakeAt;
    private Scheduler.Cancellable wakeTimer = Scheduler.Cancellable.NONE;
    private Scheduler.Cancellable tickTimer = Scheduler.Cancellable.NONE;
    private Scheduler.Cancellable graceTimer = Scheduler.Cancellable.NONE;
    private long rounds;

    Reconciler(ClusterStore shared, WorkClusterConfig config, LeaderThreads threads, UserHooks hooks, LocalOutput local,
               TermWriter writer, WorkerPool pool, BooleanSupplier active) {
        this.shared = shared;
        this.config = config;
        this.threads = threads;
        this.hooks = hooks;
        this.local = local;
        this.writer = writer;
        this.pool = pool;
        this.active = active;
        this.logic = new Reconciliation(new Planner(config.planner()), config.confirmTimeout(),
                config.restartGrace());
        this.backoff = new Backoff(config.retryInitial(), config.retryMax());
        this.actualMap = config.layout().actualMap();
        this.drainingMap = config.layout().drainingMap();
        this.sourceItems = null;
    }

    /** Loads the recorded actual state, regenerates the desired state, and starts the timers. */
    void start() {
        shared.maps().mapEntries(shared.group(), actualMap).whenComplete((entries, error) -> threads.scheduler().execute(() -> {
            if (!active.getAsBoolean()) {
                return;
            }
            if (error != null) {
                log.warn("could not read {} ({}); retrying", actualMap, error.toString());
                threads.scheduler().schedule(config.retryInitial(), this::start);
                return;
            }
            entries.forEach(this::loadRecord);
            loadDrains();
            actualLoaded = true;
            log.info("leader term {}: {} recorded subscriptions loaded", writer.term(), actual.size());
            requestRound();
        }));
        regenerate("leadership acquired");
        graceTimer = threads.scheduler().schedule(config.takeoverGrace(), () -> {
            settled = true;
            requestRound();
        });
        scheduleTick();
    }

    /**
     * The operators' drains of earlier leaders carry on; drains their workers announced are forgotten (each lasted
     * its connection, and a worker still draining announces it again on this leader's).
     */
    private void loadDrains() {
        shared.maps().mapEntries(shared.group(), drainingMap).whenComplete((entries, error) ->
                threads.scheduler().execute(() -> {
                    if (!active.getAsBoolean()) {
                        return;
                    }
                    if (error != null) {
                        log.warn("could not read {} ({}); retrying", drainingMap, error.toString());
                        threads.scheduler().schedule(config.retryInitial(), this::loadDrains);
                        return;
                    }
                    entries.forEach((url, value) -> {
                        Drain drain = Drain.parse(value.value());
                        if (drain == null || drain.announced()) {
                            writer.remove(drainingMap, url, existed -> { }, e -> { });
                        } else if (!draining.containsKey(url)) {
                            draining.put(url, drain);
                            log.info("worker {} is being drained ({})", url, drain.reason());
                        }
                    });
                    requestRound();
                }));
    }

    private void loadRecord(String item, FencedValue value) {
        try {
            setActual(ActualSubscription.fromJson(value.value()));
        } catch (IllegalArgumentException e) {
            log.warn("recorded subscription '{}' is unreadable ({}); it will be reconciled as unknown", item,
                    e.getMessage());
        }
    }

    private void scheduleTick() {
        tickTimer = threads.scheduler().schedule(config.reconcileInterval(), () -> {
            if (active.getAsBoolean()) {
                // Rescheduled first: an exception in this round must not end the periodic reconcile for good.
                scheduleTick();
                regenerate("reconcile interval");
            }
        });
    }

    void stop() {
        tickTimer.cancel();
        graceTimer.cancel();
        wakeTimer.cancel();
    }

    /** The worker a workers' report changed on: plan again if it matters. */
    void reported(String url, boolean changed) {
        if (changed || !unconfirmed.isEmpty()) {
            requestRound();
        }
    }

    /** A worker came or went. */
    void availabilityChanged() {
        if (!settled && pool.allSettled()) {
            settled = true;
            graceTimer.cancel();
        }
        requestRound();
    }

    // ---------------------------------------------------------------- desired state

    /** Reloads the whole desired state (the store's items and the source's), then reconciles. */
    void regenerate(String reason) {
        if (regenerating) {
            regenerateAgain = true;
            return;
        }
        regenerating = true;
        log.debug("regenerating the desired state: {}", reason);
        CompletableFuture<SortedMap<String, FencedValue>> stored =
                shared.maps().mapEntries(shared.group(), config.layout().itemsMap());
        CompletableFuture<List<WorkItem>> fromSource = CompletableFuture.supplyAsync(() -> {
            try {
                return hooks.source().load();
            } catch (Exception e) {
                throw new SourceFailure(e);
            }
        }, threads.sourceExecutor());
        stored.whenComplete((s, e1) -> fromSource.whenComplete((items, e2) -> threads.scheduler().execute(() -> {
            regenerating = false;
            if (!active.getAsBoolean()) {
                return;
            }
            if (e1 != null) {
                log.warn("could not read the stored items ({}); keeping the desired state as it was", e1.toString());
            } else {
                Map<String, WorkItem> byId = new HashMap<>();
                s.forEach((id, value) -> {
                    try {
                        byId.put(id, WorkItemJson.parse(value.value(), id));
                    } catch (InvalidWorkItemException e) {
                        log.warn("stored item '{}' is invalid ({}); it is not desired", id, e.getMessage());
                    }
                });
                byId.putAll(changedWhileLoading);
                byId.values().removeIf(java.util.Objects::isNull);
                storeItems = byId;
            }
            changedWhileLoading.clear();
            if (e2 != null) {
                Throwable cause = e2.getCause() instanceof SourceFailure f ? f.getCause() : e2;
                log.warn("the desired state source failed ({}); keeping the desired state as it was",
                        cause.toString());
            } else {
                Map<String, WorkItem> bySource = new HashMap<>();
                for (WorkItem item : items) {
                    if (bySource.put(item.subscriptionIdentifier(), item) != null) {
                        log.warn("the desired state source listed item '{}' twice; the last one counts",
                                item.subscriptionIdentifier());
                    }
                }
                sourceItems = bySource;
            }
            if (storeItems == null || sourceItems == null) {
                threads.scheduler().schedule(config.retryInitial(), () -> regenerate("retrying a failed load"));
            }
            mergeDesired();
            if (regenerateAgain) {
                regenerateAgain = false;
                regenerate("changed while loading");
            }
        })));
    }

    private void mergeDesired() {
        if (storeItems == null || sourceItems == null) {
            return;
        }
        Map<String, WorkItem> merged = new HashMap<>(storeItems);
        merged.putAll(sourceItems);
        desired = merged;
        requestRound();
    }

    /** An item was stored in the desired items (a subscribe through the facade). */
    void itemStored(WorkItem item) {
        if (regenerating) {
            changedWhileLoading.put(item.subscriptionIdentifier(), item);
        }
        if (storeItems != null) {
            storeItems.put(item.subscriptionIdentifier(), item);
            mergeDesired();
        }
    }

    /** An item was removed from the stored desired items. */
    void itemRemoved(String id) {
        if (regenerating) {
            changedWhileLoading.put(id, null);
        }
        if (storeItems != null && storeItems.remove(id) != null) {
            mergeDesired();
        }
    }

    // ---------------------------------------------------------------- drains

    /**
     * Drains {@code url}: recorded first (under the term), then its items start moving. {@code done} gets false for
     * a worker that is not one of the cluster's. An operator's drain replaces an announced one, not the other way.
     */
    void drain(String url, String reason, boolean announced, Consumer<Boolean> done, Consumer<Throwable> failed) {
        if (!pool.knows(url)) {
            done.accept(false);
            return;
        }
        Drain current = draining.get(url);
        if (current != null && (!current.announced() || announced)) {
            done.accept(true);
            return;
        }
        Drain drain = new Drain(reason, announced, threads.clock().instant());
        writer.put(drainingMap, url, drain.toJson(), () -> {
            draining.put(url, drain);
            log.info("draining worker {}: {}", url, reason);
            local.event(new WorkClusterEvent.WorkerDraining(url, reason, announced));
            requestRound();
            done.accept(true);
        }, failed);
    }

    /** Ends a drain of {@code url} (the worker may get items again); {@code done} gets whether it was draining. */
    void undrain(String url, Consumer<Boolean> done, Consumer<Throwable> failed) {
        writer.remove(drainingMap, url, existed -> {
            boolean was = draining.remove(url) != null;
            if (was) {
                log.info("worker {} is no longer drained", url);
                requestRound();
            }
            done.accept(was || existed);
        }, failed);
    }

    /**
     * A new connection to {@code url} opened: a drain it announced on an earlier one ends (it announces again if still
     * draining). Not when that connection closes: a worker that announced its drain and went away before its items
     * moved is still leaving, so the restart grace does not hold its items back.
     */
    void connectionOpened(String url) {
        Drain drain = draining.get(url);
        if (drain != null && drain.announced()) {
            undrain(url, was -> { }, e -> log.debug("could not forget the announced drain of {}: {}", url, e.toString()));
        }
    }

    /** The workers being drained now, by URL, with why. */
    Map<String, Drain> draining() {
        return Map.copyOf(draining);
    }

    /**
     * A drain: why, whether the worker announced it (it lasts that worker's connection) or an operator asked for it
     * (it lasts until undone), and since when.
     */
    record Drain(String reason, boolean announced, Instant since) {

        byte[] toJson() {
            ObjectNode node = JSON.createObjectNode();
            node.put("reason", reason);
            node.put("announced", announced);
            node.put("since", since.toString());
            return node.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }

        /** The drain stored as {@code json}, or null if it is not one. */
        static Drain parse(byte[] json) {
            try {
                JsonNode node = JSON.readTree(json);
                return new Drain(node.path("reason").asText(""), node.path("announced").asBoolean(false),
                        Instant.parse(node.path("since").asText()));
            } catch (java.io.IOException | java.time.format.DateTimeParseException e) {
                return null;
            }
        }
    }

    /** Whether the item is desired now (true while the desired state is not loaded yet). */
    boolean isDesired(String id) {
        return desired == null || desired.containsKey(id);
    }

    /** The worker the item is recorded on, or null. */
    String workerOf(String id) {
        ActualSubscription record = actual.get(id);
        return record == null ? null : record.assignedWorkerUrl();
    }

    // ---------------------------------------------------------------- rounds

    /** Runs a round soon; several requests before it runs make one round. */
    void requestRound() {
        if (!roundQueued) {
            roundQueued = true;
            threads.scheduler().execute(this::round);
        }
    }

    private void wakeAt(long nanos) {
        long now = threads.clock().nanoTime();
        if (wakeAt != 0 && wakeAt - now > 0 && wakeAt - nanos <= 0) {
            return; // an earlier wake-up is already set
        }
        wakeTimer.cancel();
        wakeAt = nanos;
        wakeTimer = threads.scheduler().schedule(Duration.ofNanos(Math.max(0, nanos - now)), () -> {
            wakeAt = 0;
            requestRound();
        });
    }

    private void round() {
        roundQueued = false;
        if (!active.getAsBoolean() || !actualLoaded || desired == null || !settled) {
            return;
        }
        long now = threads.clock().nanoTime();
        rounds++;
        if (rounds % 64 == 0) {
            long horizon = config.confirmTimeout().toNanos() * 2;
            lastUnsubscribed.values().removeIf(t -> now - t > horizon);
        }
        List<WorkerView> views = pool.views();
        for (WorkerView view : views) {
            if (logic.inGrace(view, draining.keySet(), now)) {
                wakeAt(logic.graceEndsAt(view)); // its items move when the grace ends, unless it is back
            }
        }
        List<ReconcileAction> actions = logic.decide(new Reconciliation.Input(desired, actual, views,
                inFlight, notBefore, lastSent, lastUnsubscribed, now, draining.keySet(), handovers,
                pool.reportedCosts()));
        for (ReconcileAction action : actions) {
            execute(action, now);
        }
    }

    private void execute(ReconcileAction action, long now) {
        if (action instanceof ReconcileAction.Assign a) {
            assign(a.item(), a.from(), a.to(), a.makeBeforeBreak());
        } else if (action instanceof ReconcileAction.Remove r) {
            remove(r.item(), r.from());
        } else if (action instanceof ReconcileAction.Unassign u) {
            unassign(u.item(), u.from(), Reconciliation.reasonText(u.reason()));
        } else if (action instanceof ReconcileAction.Adopt a) {
            adopt(a.item(), a.worker(), a.record());
        } else if (action instanceof ReconcileAction.Confirm c) {
            confirm(c.item(), c.worker());
        } else if (action instanceof ReconcileAction.Resubscribe r) {
            resubscribe(r.item(), r.worker(), r.retry());
        } else if (action instanceof ReconcileAction.Unsubscribe u) {
            stop(u.worker(), u.item(), now);
        } else {
            throw new IllegalStateException("no handling for reconcile action " + action.getClass().getName());
        }
    }

    private void assign(String id, String from, String to, boolean makeBeforeBreak) {
        WorkItem item = desired.get(id);
        inFlight.put(id, to);
        resolve(id, item, to, resolved -> {
            long now = threads.clock().nanoTime();
            ActualSubscription record = new ActualSubscription(id, to, resolved.modelUrl(),
                    ActualSubscription.Status.PENDING, threads.clock().instant(), threads.clock().instant(), null,
                    attempts.getOrDefault(id, 0));
            writer.put(actualMap, id, record.toJson(), () -> {
                inFlight.remove(id);
                setActual(record);
                if (makeBeforeBreak) {
                    handovers.put(id, from); // stopped there once the new worker confirms it
                } else if (from != null) {
                    stop(from, id, now);
                }
                send(to, resolved);
                local.event(from == null ? new WorkClusterEvent.ItemAssigned(id, to)
                        : new WorkClusterEvent.ItemMoved(id, from, to));
            }, error -> failed(id, "could not record its assignment: " + error));
        });
    }

    private void remove(String id, String from) {
        inFlight.put(id, null);
        writer.remove(actualMap, id, existed -> {
            inFlight.remove(id);
            endHandover(id);
            forget(id);
            if (from != null) {
                stop(from, id, threads.clock().nanoTime());
            }
        }, retrySoon(id));
    }

    private void unassign(String id, String from, String reason) {
        ActualSubscription record = new ActualSubscription(id, null, null, ActualSubscription.Status.FAILED, null,
                threads.clock().instant(), reason, 0);
        inFlight.put(id, null);
        writer.put(actualMap, id, record.toJson(), () -> {
            inFlight.remove(id);
            setActual(record);
            endHandover(id);
            if (from != null) {
                stop(from, id, threads.clock().nanoTime());
            }
            log.warn("item '{}' is on no worker: {}", id, reason);
            local.event(new WorkClusterEvent.ItemUnassigned(id, from, reason));
        }, retrySoon(id));
    }

    /** A store write failed (not refused): the next round after {@code retryInitial} tries again. */
    private Consumer<Throwable> retrySoon(String id) {
        return error -> {
            inFlight.remove(id);
            log.debug("a store write for '{}' failed: {}", id, error.toString());
            wakeAt(threads.clock().nanoTime() + config.retryInitial().toNanos());
        };
    }

    private void adopt(String id, String worker, boolean record) {
        WorkItem item = desired.get(id);
        ActualSubscription existing = actual.get(id);
        if (!record && existing != null && existing.modelUrl() != null) {
            pool.adopt(worker, subscribe(item, existing.modelUrl()));
            return;
        }
        inFlight.put(id, worker);
        resolve(id, item, worker, resolved -> {
            if (!record) {
                inFlight.remove(id);
                pool.adopt(worker, subscribe(resolved, resolved.modelUrl()));
                return;
            }
            ActualSubscription adopted = new ActualSubscription(id, worker, resolved.modelUrl(),
                    ActualSubscription.Status.ACTIVE, threads.clock().instant(), threads.clock().instant(), null, 0);
            writer.put(actualMap, id, adopted.toJson(), () -> {
                inFlight.remove(id);
                setActual(adopted);
                pool.adopt(worker, subscribe(resolved, resolved.modelUrl()));
                log.info("adopted item '{}' on {}, which already runs it", id, worker);
            }, error -> failed(id, "could not record its adoption: " + error));
        });
    }

    private void confirm(String id, String worker) {
        ActualSubscription record = actual.get(id);
        ActualSubscription confirmed = record.with(ActualSubscription.Status.ACTIVE, null, 0, threads.clock().instant());
        inFlight.put(id, worker);
        writer.put(actualMap, id, confirmed.toJson(), () -> {
            inFlight.remove(id);
            setActual(confirmed);
            attempts.remove(id);
            notBefore.remove(id);
            String drained = handovers.remove(id);
            if (drained != null && !drained.equals(worker)) {
                stop(drained, id, threads.clock().nanoTime()); // running on its new worker now: break
            }
            WorkItem item = desired.get(id);
            if (item != null && !pool.holds(worker, id) && confirmed.modelUrl() != null) {
                pool.adopt(worker, subscribe(item, confirmed.modelUrl()));
            }
        }, retrySoon(id));
    }

    private void resubscribe(String id, String worker, boolean retry) {
        WorkItem item = desired.get(id);
        ActualSubscription before = actual.get(id);
        int tries = retry ? bumpAttempts(id) : attempts.getOrDefault(id, 0);
        inFlight.put(id, worker);
        resolve(id, item, worker, resolved -> {
            String error = retry ? "not confirmed by " + worker + " within "
                    + config.confirmTimeout().toMillis() + " ms; subscribed again" : null;
            ActualSubscription record = new ActualSubscription(id, worker, resolved.modelUrl(),
                    retry ? ActualSubscription.Status.RECOVERING : ActualSubscription.Status.PENDING,
                    before == null || before.assignedAt() == null ? threads.clock().instant() : before.assignedAt(),
                    threads.clock().instant(), error, tries);
            writer.put(actualMap, id, record.toJson(), () -> {
                inFlight.remove(id);
                setActual(record);
                send(worker, resolved);
            }, e -> failed(id, "could not record its subscription: " + e));
        });
    }

    private int bumpAttempts(String id) {
        int n = attempts.merge(id, 1, Integer::sum);
        long until = threads.clock().nanoTime() + backoff.after(n).toNanos();
        notBefore.put(id, until);
        wakeAt(until);
        return n;
    }

    private void send(String worker, WorkItem resolved) {
        long now = threads.clock().nanoTime();
        pool.subscribe(worker, subscribe(resolved, resolved.modelUrl()));
        lastSent.put(resolved.subscriptionIdentifier(), now);
        wakeAt(now + config.confirmTimeout().toNanos());
    }

    /** The item will not be confirmed on a new worker after all: the drained worker's copy stops now. */
    private void endHandover(String id) {
        String drained = handovers.remove(id);
        if (drained != null) {
            stop(drained, id, threads.clock().nanoTime());
        }
    }

    private void stop(String worker, String id, long now) {
        lastUnsubscribed.put(Reconciliation.key(worker, id), now);
        pool.unsubscribe(worker, id);
    }

    /**
     * Resolves the item's per-assignment fields with the hook, on the source executor; {@code then} runs on the
     * scheduler while the role is active. A failing hook or a missing model URL fails this attempt.
     */
    private void resolve(String id, WorkItem item, String worker, Consumer<WorkItem> then) {
        if (item == null) {
            inFlight.remove(id);
            return;
        }
        CompletableFuture.supplyAsync(() -> {
            try {
                return hooks.hook().resolve(item, worker);
            } catch (Exception e) {
                throw new SourceFailure(e);
            }
        }, threads.sourceExecutor()).whenComplete((resolved, error) -> threads.scheduler().execute(() -> {
            if (!active.getAsBoolean()) {
                return;
            }
            if (error != null) {
                Throwable cause = error.getCause() instanceof SourceFailure f ? f.getCause() : error;
                failed(id, "the assignment hook failed: " + cause);
            } else if (resolved == null || resolved.modelUrl() == null) {
                failed(id, "no modelUrl: the item has none and the assignment hook gave none");
            } else {
                then.accept(resolved.subscriptionIdentifier().equals(id) ? resolved
                        : resolved.withSubscriptionIdentifier(id));
            }
        }));
    }

    /** An attempt failed: back off, and record why. */
    private void failed(String id, String reason) {
        inFlight.remove(id);
        int n = bumpAttempts(id);
        if (n == 1) {
            log.warn("item '{}': {}; retrying with backoff", id, reason);
        } else {
            log.debug("item '{}' (attempt {}): {}", id, n, reason);
        }
        ActualSubscription before = actual.get(id);
        ActualSubscription record = before == null
                ? new ActualSubscription(id, null, null, ActualSubscription.Status.FAILED, null,
                        threads.clock().instant(), reason, n)
                : before.with(before.assignedWorkerUrl() == null ? ActualSubscription.Status.FAILED
                        : ActualSubscription.Status.RECOVERING, reason, n, threads.clock().instant());
        writer.put(actualMap, id, record.toJson(), () -> setActual(record),
                e -> log.debug("could not record the failure of '{}': {}", id, e.toString()));
    }

    private void setActual(ActualSubscription record) {
        String id = record.subscriptionIdentifier();
        actual.put(id, record);
        if (record.assignedWorkerUrl() != null && record.status() != ActualSubscription.Status.ACTIVE) {
            unconfirmed.add(id);
        } else {
            unconfirmed.remove(id);
        }
    }

    private void forget(String id) {
        actual.remove(id);
        unconfirmed.remove(id);
        attempts.remove(id);
        notBefore.remove(id);
        lastSent.remove(id);
    }

    static WorkerCommand.Subscribe subscribe(WorkItem item, String modelUrl) {
        return new WorkerCommand.Subscribe(item.subscriptionIdentifier(), item.rtspUrl(), item.snapshotUrl(),
                item.snapshotInterval(), modelUrl, item.modelName(), item.modelId(), item.cropX1(), item.cropY1(),
                item.cropX2(), item.cropY2());
    }

    /** Desired items, actual-state records, items in flight, rounds run. */
    record Counters(long desired, long recorded, long inFlight, long rounds) { }

    /** Counts for tests and metrics. */
    Counters counters() {
        return new Counters(desired == null ? 0 : desired.size(), actual.size(), inFlight.size(), rounds);
    }

    /** Wraps a checked failure of user code run on the source executor. */
    private static final class SourceFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        SourceFailure(Exception cause) {
            super(cause);
        }
    }
}

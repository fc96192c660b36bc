package dev.baton.work.internal.cluster;

import dev.baton.work.StoreLayout;
import dev.baton.work.WorkClusterConfig;
import dev.baton.work.WorkClusterException;
import dev.baton.core.store.MessageBus;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import dev.baton.work.internal.reconcile.LeaderRole;
import dev.baton.work.internal.route.BusCodec;
import dev.baton.work.internal.route.BusMessage;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Sends this process's requests to the leader and waits for the answers: directly when this process leads, else on
 * {@code worker:master:commands} with the answer coming back on this process's channel. A request is sent again
 * every retry interval (the bus may lose it; the leader may be changing; every request is idempotent) until it is
 * answered or the request timeout passes. Each copy is addressed to the term of the leader this process knows (none
 * is sent while it knows none): a copy that arrives late, after the answer, is then either refused by a newer leader
 * or recognised by the same one, and never undoes a later request. Runs on the cluster's scheduler.
 */
final class LeaderClient {

    private final String group;
    private final String processId;
    private final MessageBus bus;
    private final StoreLayout layout;
    private final BusCodec codec;
    private final Scheduler scheduler;
    private final Clock clock;
    private final WorkClusterConfig config;
    private final Supplier<LeaderRole> localRole;
    private final LongSupplier leaderTerm;
    private final String prefix;
    private final Map<String, Pending> pending = new HashMap<>();
    private long counter;

    /**
     * @param localRole  this process's leader role, if it has one
     * @param leaderTerm the term of the leader this process knows now, 0 if it knows none
     */
    LeaderClient(String group, String processId, long incarnation, MessageBus bus, BusCodec codec,
            Scheduler scheduler, Clock clock, WorkClusterConfig config, Supplier<LeaderRole> localRole,
            LongSupplier leaderTerm) {
        this.group = group;
        this.processId = processId;
        this.bus = bus;
        this.layout = config.layout();
        this.codec = codec;
        this.scheduler = scheduler;
        this.clock = clock;
        this.config = config;
        this.localRole = localRole;
        this.leaderTerm = leaderTerm;
        this.prefix = processId + "/" + Long.toHexString(incarnation) + "/";
    }

    /**
     * Sends a request (built for the request id given) and completes with the answer's value, or fails with a
     * {@link WorkClusterException} when the leader refused it or no leader answered in time. Any thread.
     */
    CompletableFuture<Long> request(Function<String, BusMessage.Request> build, String what) {
        CompletableFuture<Long> result = new CompletableFuture<>();
        scheduler.execute(() -> {
            String id = prefix + (++counter);
            Pending p = new Pending(build.apply(id), what, result, clock.nanoTime());
            pending.put(id, p);
            attempt(p);
        });
        return result;
    }

    private void attempt(Pending p) {
        if (p.result.isDone()) {
            return;
        }
        long elapsed = clock.nanoTime() - p.startedAt;
        if (elapsed >= config.requestTimeout().toNanos()) {
            pending.remove(p.request.requestId());
            p.result.completeExceptionally(new WorkClusterException(p.what + ": no leader answered within "
                    + config.requestTimeout().toMillis() + " ms" + (p.lastError == null ? "" : " (last answer: "
                    + p.lastError + ")")));
            return;
        }
        LeaderRole role = localRole.get();
        long term = leaderTerm.getAsLong();
        if (role != null && role.isActive()) {
            role.handle(p.request.withTerm(role.term()))
                    .thenAccept(response -> scheduler.execute(() -> answered(response)));
        } else if (term > 0) {
            bus.publish(layout.commandsChannel(), codec.encode(p.request.withTerm(term))).exceptionally(e -> {
                scheduler.execute(() -> p.lastError = "could not publish: " + e);
                return -1L;
            });
        } else {
            p.lastError = "no leader known";
        }
        Duration wait = config.requestRetryInterval();
        long left = config.requestTimeout().toNanos() - elapsed;
        scheduler.schedule(left < wait.toNanos() ? Duration.ofNanos(left) : wait, () -> attempt(p));
    }

    /** An answer arrived (on this process's channel, or from the local leader). */
    void answered(BusMessage.Response response) {
        Pending p = pending.get(response.requestId());
        if (p == null) {
            return; // answered already (a retried request is answered once per copy)
        }
        if (response.ok()) {
            pending.remove(response.requestId());
            p.result.complete(response.value());
        } else if (response.retryable()) {
            p.lastError = response.error();
        } else {
            pending.remove(response.requestId());
            p.result.completeExceptionally(new WorkClusterException(p.what + ": " + response.error()));
        }
    }

    /** Fails every request still waiting (the cluster is closing). */
    void closeAll() {
        for (Pending p : pending.values()) {
            p.result.completeExceptionally(new WorkClusterException(p.what + ": the work cluster was closed"));
        }
        pending.clear();
    }

    String group() {
        return group;
    }

    String processId() {
        return processId;
    }

    private static final class Pending {
        final BusMessage.Request request;
        final String what;
        final CompletableFuture<Long> result;
        final long startedAt;
        String lastError;

        Pending(BusMessage.Request request, String what, CompletableFuture<Long> result, long startedAt) {
            this.request = request;
            this.what = what;
            this.result = result;
            this.startedAt = startedAt;
        }
    }
}

package dev.baton.peer.internal;

import dev.baton.core.ClusterStatus;
import dev.baton.core.Election;
import dev.baton.core.ElectionListener;
import dev.baton.core.LeaderInfo;
import dev.baton.core.Leadership;
import dev.baton.core.MemberStatus;
import dev.baton.core.NodeState;
import dev.baton.core.Registration;
import dev.baton.core.spi.EventDispatcher;
import dev.baton.core.time.Scheduler;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the serverless elections (quorum, bully) share as {@link Election}s: the adapter between the core API and a
 * protocol's state machine. Every command is posted to the machine's {@link Scheduler}; every read comes from the
 * snapshot the machine publishes ({@link NodeOutput}); events go through one {@link EventDispatcher}. A subclass
 * creates its machine (handing it {@link #events()}) and says how the machine starts, steps down, closes and lists
 * its members. Not a published API.
 */
public abstract class PeerElection implements Election {

    private static final Logger log = LoggerFactory.getLogger(PeerElection.class);

    private final String group;
    private final Scheduler scheduler;
    private final EventDispatcher events;
    private final Duration closeWait;
    private final Runnable afterClose;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closeRequested = new AtomicBoolean();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();

    /**
     * @param eventExecutor the default executor for listeners
     * @param closeWait     how long {@link #close()} waits for the farewell to go out
     * @param afterClose    run once the election has closed (the driver releases its threads and transport there)
     */
    protected PeerElection(String group, Scheduler scheduler, Executor eventExecutor, Duration closeWait,
            Runnable afterClose) {
        if (group == null || group.isBlank()) {
            throw new IllegalArgumentException("group must not be blank");
        }
        this.group = group;
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.events = new EventDispatcher(Objects.requireNonNull(eventExecutor, "eventExecutor"));
        this.closeWait = closeWait;
        this.afterClose = afterClose;
    }

    /** The dispatcher the machine emits its events through. */
    protected final EventDispatcher events() {
        return events;
    }

    protected final Scheduler scheduler() {
        return scheduler;
    }

    /** The machine's published snapshot. */
    protected abstract NodeOutput output();

    /** Starts the machine; runs on the scheduler, once. */
    protected abstract void startNode();

    /** Gives up leadership if held; runs on the scheduler; completes {@code done} when it is done. */
    protected abstract void stepDownNode(boolean fromListener, CompletableFuture<Void> done);

    /** Leaves the group; runs on the scheduler; completes {@code closed} once the farewell is out. */
    protected abstract void closeNode(boolean fromListener, CompletableFuture<Void> closed);

    /** Every member the machine knows, in its state; runs on the scheduler. */
    protected abstract List<MemberStatus> memberStatuses();

    /** How the backend is called in messages, e.g. {@code the bully backend}. */
    protected abstract String backendName();

    @Override
    public final String group() {
        return group;
    }

    @Override
    public final void start() {
        if (started.compareAndSet(false, true)) {
            scheduler.execute(this::startNode);
        }
    }

    /** Blocks until this node first follows a leader or leads. */
    @Override
    public final boolean awaitElected(Duration timeout) throws InterruptedException, TimeoutException {
        try {
            output().firstRound().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("election of group " + group + " was closed", e.getCause());
        }
        return isLeader();
    }

    @Override
    public final CompletableFuture<Boolean> whenElected() {
        return output().firstRound().copy();
    }

    @Override
    public final boolean isLeader() {
        Leadership leadership = output().leadership();
        return leadership != null && leadership.isValid();
    }

    @Override
    public final Optional<Leadership> leadership() {
        return Optional.ofNullable(output().leadership()).filter(Leadership::isValid);
    }

    /** The leader this node follows (or itself), with its term; empty while it has none. */
    @Override
    public final Optional<LeaderInfo> leader() {
        return Optional.ofNullable(output().leader());
    }

    @Override
    public final NodeState state() {
        return output().state();
    }

    /** Why this node has no working leader right now, if so. */
    @Override
    public final Optional<String> problem() {
        return Optional.ofNullable(output().problem());
    }

    /** This node's state, leader and problem, and every member it knows in its state (joining ... leaving). */
    @Override
    public final CompletableFuture<ClusterStatus> status() {
        CompletableFuture<ClusterStatus> result = new CompletableFuture<>();
        scheduler.execute(() -> result.complete(new ClusterStatus(group, nodeId(), output().state(), leader(),
                memberStatuses(), problem())));
        return result;
    }

    @Override
    public final CompletableFuture<Void> stepDown() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        boolean fromListener = events.deliveringOnThisThread();
        scheduler.execute(() -> stepDownNode(fromListener, done));
        return done;
    }

    @Override
    public final Registration addListener(ElectionListener listener) {
        return events.add(listener);
    }

    @Override
    public final Registration addListener(ElectionListener listener, Executor executor) {
        return events.add(listener, executor);
    }

    @Override
    public final CompletableFuture<Void> closeAsync() {
        if (closeRequested.compareAndSet(false, true)) {
            boolean fromListener = events.deliveringOnThisThread();
            CompletableFuture<Void> handedOver = new CompletableFuture<>();
            handedOver.whenComplete((ignored, error) -> {
                closed.complete(null);
                if (afterClose != null) {
                    afterClose.run();
                }
            });
            scheduler.execute(() -> closeNode(fromListener, handedOver));
        }
        return closed;
    }

    /**
     * {@link #closeAsync()}, waiting for the farewell to go out (bounded by the close wait plus a second); from a
     * listener or the machine's own thread it does not wait (see {@link Election#close()}).
     */
    @Override
    public final void close() {
        closeAsync();
        if (events.deliveringOnThisThread() || scheduler.runsTaskOnThisThread()) {
            // The farewell needs this thread or waits for this listener to return: waiting would wait for ourselves.
            return;
        }
        try {
            closed.get(closeWait.toNanos() + Duration.ofSeconds(1).toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.warn("Closing the {} election of group {} did not finish cleanly: {}", backendName(), group,
                    e.toString());
        }
    }
}

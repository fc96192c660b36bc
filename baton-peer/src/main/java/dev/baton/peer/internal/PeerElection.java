package dev.baton.peer.internal;

import dev.baton.core.ClusterStatus;
import dev.baton.core.Election;
import dev.baton.core.ElectionListener;
import dev.baton.core.LeaderInfo;
import dev.baton.core.Leadership;
import dev.baton.core.NodeState;
import dev.baton.core.Registration;
import dev.baton.core.spi.EventDispatcher;
import dev.baton.core.spi.ShutdownRelease;
import dev.baton.core.time.Scheduler;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the serverless elections (quorum, bully) share as {@link Election}s: the adapter between the core API and a
 * protocol's state machine ({@link ProtocolNode}). It creates the machine (handing it the {@link EventDispatcher} its
 * events go through), delivers the transport's messages to it on its {@link Scheduler}, posts every command there, and
 * answers every read from the snapshot the machine publishes ({@link NodeOutput}). A subclass keeps only what is its
 * protocol's own: how the machine is built, its membership view, its configuration. Not a published API.
 *
 * @param <M> the protocol's message type
 * @param <N> the protocol's state machine
 */
public abstract class PeerElection<M, N extends ProtocolNode<M>> implements Election {

    private static final Logger log = LoggerFactory.getLogger(PeerElection.class);

    private final String group;
    private final Scheduler scheduler;
    private final EventDispatcher events;
    private final N protocol;
    private final Duration closeWait;
    private final Runnable afterClose;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closeRequested = new AtomicBoolean();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private volatile ShutdownRelease shutdownRelease;

    /**
     * Creates the machine and takes the transport's message handler: from now on every message goes to the machine,
     * on the scheduler.
     *
     * @param transport     the protocol's transport; its handler is set here
     * @param eventExecutor the default executor for listeners
     * @param closeWait     how long {@link #close()} waits for the farewell to go out
     * @param afterClose    run once the election has closed (the driver releases its threads and transport there)
     * @param machine       builds the state machine around the dispatcher it emits its events through
     */
    protected PeerElection(String group, Transport<M> transport, Scheduler scheduler, Executor eventExecutor,
            Duration closeWait, Runnable afterClose, Function<EventDispatcher, N> machine) {
        if (group == null || group.isBlank()) {
            throw new IllegalArgumentException("group must not be blank");
        }
        this.group = group;
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.events = new EventDispatcher(Objects.requireNonNull(eventExecutor, "eventExecutor"));
        this.closeWait = closeWait;
        this.afterClose = afterClose;
        this.protocol = Objects.requireNonNull(machine.apply(events), "machine");
        transport.setHandler((from, message) -> scheduler.execute(() -> protocol.onMessage(from, message)));
    }

    /** The state machine. */
    protected final N protocol() {
        return protocol;
    }

    protected final Scheduler scheduler() {
        return scheduler;
    }

    private NodeOutput output() {
        return protocol.output();
    }

    /** How the backend is called in messages, e.g. {@code the bully backend}. */
    protected abstract String backendName();

    @Override
    public final String group() {
        return group;
    }

    /** Closes this election from a JVM shutdown hook while it runs (see {@link PeerBuilder#releaseOnShutdown}). */
    final void releaseOnShutdown() {
        shutdownRelease = ShutdownRelease.closing(this);
    }

    /** This node's peer address, which is also its node id. */
    public final PeerAddress address() {
        return protocol.self();
    }

    @Override
    public final String nodeId() {
        return protocol.self().format();
    }

    @Override
    public final void start() {
        if (started.compareAndSet(false, true)) {
            if (shutdownRelease != null) {
                shutdownRelease.register();
            }
            scheduler.execute(protocol::start);
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
                protocol.memberStatuses(), problem())));
        return result;
    }

    @Override
    public final CompletableFuture<Void> stepDown() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        boolean fromListener = events.deliveringOnThisThread();
        scheduler.execute(() -> protocol.stepDown(fromListener, done));
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
                if (shutdownRelease != null) {
                    shutdownRelease.unregister();
                }
                closed.complete(null);
                if (afterClose != null) {
                    afterClose.run();
                }
            });
            scheduler.execute(() -> protocol.close(fromListener, handedOver));
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

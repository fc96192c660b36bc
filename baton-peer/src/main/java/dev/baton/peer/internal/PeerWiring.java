package dev.baton.peer.internal;

import dev.baton.core.Capabilities;
import dev.baton.core.NodeInfo;
import dev.baton.core.time.ExecutorScheduler;
import dev.baton.core.time.Scheduler;
import dev.baton.peer.MemberCard;
import dev.baton.peer.transport.MessageCodec;
import dev.baton.peer.transport.NettyTransport;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executor;

/**
 * The thin driver a serverless front door ({@code Quorum}, {@code Bully}) builds its election on: the transport (the
 * caller's, or its own started {@link NettyTransport}), the state machine's scheduler and the listeners' executor
 * (the caller's, or dedicated threads), a random source, and what to release once the election has closed. Not a
 * published API.
 *
 * @param <M> the protocol's message type
 */
public final class PeerWiring<M> {

    private final Transport<M> transport;
    private final Scheduler scheduler;
    private final Executor eventExecutor;
    private final Random random;
    private final NettyTransport<M> ownTransport;
    private final ExecutorScheduler ownScheduler;
    private final ExecutorScheduler ownEvents;
    private final List<AutoCloseable> alsoRelease = new ArrayList<>();

    private PeerWiring(Transport<M> transport, NettyTransport<M> ownTransport, Scheduler scheduler,
            ExecutorScheduler ownScheduler, Executor eventExecutor, ExecutorScheduler ownEvents, Random random) {
        this.transport = transport;
        this.ownTransport = ownTransport;
        this.scheduler = scheduler;
        this.ownScheduler = ownScheduler;
        this.eventExecutor = eventExecutor;
        this.ownEvents = ownEvents;
        this.random = random;
    }

    /**
     * Wires an election. With {@code given == null} it builds and starts a {@link NettyTransport} listening on
     * {@code listen} with the group as cluster name ({@code advertise} and {@code sharedSecret} optional); with
     * {@code scheduler} or {@code eventExecutor} null it starts dedicated threads named after {@code threadPrefix}
     * and the group; with {@code random} null it seeds one from {@link SecureRandom}.
     *
     * @throws IllegalStateException if the TCP port cannot be bound (nothing is left running)
     */
    public static <M> PeerWiring<M> wire(Transport<M> given, PeerAddress listen, MessageCodec<M> codec, String group,
            PeerAddress advertise, byte[] sharedSecret, Scheduler scheduler, Executor eventExecutor, Random random,
            String threadPrefix) {
        NettyTransport<M> own = null;
        if (given == null) {
            NettyTransport.Builder<M> tcp = NettyTransport.builder(codec).listen(listen).clusterName(group);
            if (advertise != null) {
                tcp.advertise(advertise);
            }
            if (sharedSecret != null) {
                tcp.sharedSecret(sharedSecret);
            }
            own = tcp.build();
            own.start();
        }
        ExecutorScheduler ownScheduler = scheduler == null ? new ExecutorScheduler(threadPrefix + group) : null;
        ExecutorScheduler ownEvents = eventExecutor == null ? new ExecutorScheduler("events-" + group) : null;
        return new PeerWiring<>(given != null ? given : own, own, ownScheduler != null ? ownScheduler : scheduler,
                ownScheduler, ownEvents != null ? ownEvents::execute : eventExecutor, ownEvents,
                random != null ? random : new Random(new SecureRandom().nextLong()));
    }

    /** What a node tells its group about itself, from its {@link NodeInfo} (default: identifier {@code baton}). */
    public static MemberCard card(NodeInfo self) {
        NodeInfo node = self != null ? self : NodeInfo.of("baton", "baton");
        return new MemberCard(node.identifier(), node.apiAddress(),
                node.capabilities() != null ? node.capabilities() : Capabilities.DEFAULT, node.metadata());
    }

    public Transport<M> transport() {
        return transport;
    }

    public Scheduler scheduler() {
        return scheduler;
    }

    public Executor eventExecutor() {
        return eventExecutor;
    }

    public Random random() {
        return random;
    }

    /** Also closes {@code resource} once the election has closed (after the transport). */
    public PeerWiring<M> alsoRelease(AutoCloseable resource) {
        alsoRelease.add(resource);
        return this;
    }

    /** Releases what the wiring owns, once the election has closed; events already queued still reach listeners. */
    public Runnable afterClose() {
        return () -> {
            if (ownTransport != null) {
                ownTransport.close();
            }
            for (AutoCloseable resource : alsoRelease) {
                try {
                    resource.close();
                } catch (Exception e) {
                    org.slf4j.LoggerFactory.getLogger(PeerWiring.class).warn("Could not close {}: {}", resource,
                            e.toString());
                }
            }
            if (ownEvents != null) {
                ownEvents.execute(() -> ownEvents.close(Duration.ZERO));
            }
            if (ownScheduler != null) {
                ownScheduler.execute(() -> ownScheduler.close(Duration.ZERO));
            }
        };
    }

    /** Releases everything at once: building the election failed. */
    public void abort() {
        if (ownTransport != null) {
            ownTransport.close();
        }
        if (ownScheduler != null) {
            ownScheduler.close(Duration.ZERO);
        }
        if (ownEvents != null) {
            ownEvents.close(Duration.ZERO);
        }
    }
}

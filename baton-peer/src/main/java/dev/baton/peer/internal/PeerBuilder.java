package dev.baton.peer.internal;

import dev.baton.core.NodeInfo;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import dev.baton.peer.MemberCard;
import dev.baton.peer.transport.MessageCodec;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import java.security.SecureRandom;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.Executor;

/**
 * The settings every serverless front door ({@code Quorum.Builder}, {@code Bully.Builder}) shares: the transport or
 * the address to listen on, the group, how the node describes itself, authentication, and the clock, scheduler,
 * listener executor and randomness (each with a production default). A builder adds its protocol's settings and calls
 * {@link #wire} in its {@code build()}.
 *
 * @param <B> the concrete builder
 * @param <M> the protocol's message type
 */
public abstract class PeerBuilder<B extends PeerBuilder<B, M>, M> {

    private final Transport<M> transport;
    private final PeerAddress listen;
    private String group;
    private NodeInfo node;
    private byte[] sharedSecret;
    private PeerAddress advertise;
    private Clock clock = Clock.system();
    private Scheduler scheduler;
    private Executor eventExecutor;
    private Random random;
    private Boolean releaseOnShutdown;

    /** Exactly one of {@code transport} (the caller's) and {@code listen} (an own TCP transport) is given. */
    protected PeerBuilder(Transport<M> transport, PeerAddress listen) {
        this.transport = transport;
        this.listen = listen;
    }

    protected abstract B self();

    /** The group's name; required. Over TCP it is also the handshake's cluster name. */
    public B group(String name) {
        this.group = name;
        return self();
    }

    /**
     * How this node describes itself (identifier, API address, capabilities, metadata). Its id is replaced: a
     * serverless node's id is its peer address. Default: identifier {@code baton}.
     */
    public B node(NodeInfo value) {
        this.node = Objects.requireNonNull(value, "node");
        return self();
    }

    /** TCP only: authenticate peers with this shared secret (at least 16 bytes). */
    public B sharedSecret(byte[] secret) {
        this.sharedSecret = secret == null ? null : secret.clone();
        return self();
    }

    /** TCP only: the address peers know this node by, when it differs from the listen address. */
    public B advertise(PeerAddress address) {
        this.advertise = address;
        return self();
    }

    /** Time source; default {@link Clock#system()}. */
    public B clock(Clock value) {
        this.clock = Objects.requireNonNull(value, "clock");
        return self();
    }

    /** Scheduler for the state machine; default: a dedicated thread, stopped when the election closes. */
    public B scheduler(Scheduler value) {
        this.scheduler = value;
        return self();
    }

    /** Default executor for listeners; default: a dedicated event thread, stopped when the election closes. */
    public B eventExecutor(Executor value) {
        this.eventExecutor = value;
        return self();
    }

    /** Source of every random choice of the protocol; default: seeded from {@link SecureRandom}. */
    public B random(Random value) {
        this.random = value;
        return self();
    }

    /**
     * Whether the election closes itself when the JVM shuts down (SIGTERM, Ctrl-C, {@code System.exit}): a JVM
     * shutdown hook, registered by {@code start()} and removed once the election has closed, calls {@code close()}.
     * A leader then stops counting itself leader, delivers {@code LeadershipLost} (reason {@code RELEASED}) to every
     * listener, and hands over (quorum: its resignation; bully: {@code Resign}) once they have all returned, or after
     * the protocol's timeout if one has not; the others elect a successor at once instead of after missed heartbeats.
     * Default: true, unless a {@link #scheduler(Scheduler)} is given (a caller-driven scheduler, such as the
     * simulated network's, cannot be relied on to run during shutdown).
     *
     * <p>Shutdown hooks run concurrently and in no particular order: this one does not wait for the application's
     * own hooks, nor they for it. An application whose other hooks must come first passes {@code false} and calls
     * {@code close()} from its own hook, in the order it needs.
     */
    public B releaseOnShutdown(boolean value) {
        this.releaseOnShutdown = value;
        return self();
    }

    /** The group, checked. */
    protected final String requireGroup() {
        if (group == null || group.isBlank()) {
            throw new IllegalArgumentException("group must be set");
        }
        return group;
    }

    protected final Clock clock() {
        return clock;
    }

    /** The node's card, from {@link #node}. */
    protected final MemberCard card() {
        return PeerWiring.card(node);
    }

    /** Applies the builder's election-wide options to {@code election}, just built; returns it. */
    protected final <E extends PeerElection> E configure(E election) {
        if (releaseOnShutdown != null ? releaseOnShutdown : scheduler == null) {
            election.releaseOnShutdown();
        }
        return election;
    }

    /** Starts the transport (over TCP) and the threads; see {@link PeerWiring#wire}. */
    protected final PeerWiring<M> wire(MessageCodec<M> codec, String threadPrefix) {
        return PeerWiring.wire(transport, listen, codec, requireGroup(), advertise, sharedSecret, scheduler,
                eventExecutor, random, threadPrefix);
    }
}

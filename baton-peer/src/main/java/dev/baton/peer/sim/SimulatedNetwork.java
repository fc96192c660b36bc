package dev.baton.peer.sim;

import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import dev.baton.peer.transport.DropReason;
import dev.baton.peer.transport.MalformedMessageException;
import dev.baton.peer.transport.MessageCodec;
import dev.baton.peer.transport.MessageHandler;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An in-memory network of {@link Transport}s under virtual time, with seeded faults: the twin of
 * {@code NettyTransport} that protocol tests (and users' own tests) run on. A protocol written against
 * {@link Transport} runs here unchanged.
 *
 * <pre>{@code
 * FakeClock clock = new FakeClock();
 * DeterministicScheduler scheduler = new DeterministicScheduler(clock);
 * SimulatedNetwork<QuorumMessage> network = SimulatedNetwork.<QuorumMessage>builder(scheduler, clock, new Random(seed))
 *         .defaultLink(LinkConditions.defaults().withLoss(0.01))
 *         .codec(JacksonMessageCodec.forSealed(QuorumMessage.class))
 *         .build();
 * Transport<QuorumMessage> a = network.transport(PeerAddress.of("n1", 7400));
 * ...
 * network.partition(Set.of(n1, n2), Set.of(n3));
 * scheduler.advance(Duration.ofSeconds(5));
 * }</pre>
 *
 * <p><b>Time and threads.</b> Deliveries are tasks on the given {@link Scheduler}; the handler runs as such a task.
 * With the testkit's {@code DeterministicScheduler} nothing moves until the test advances time.
 *
 * <p><b>Fate of a message</b>, decided when it is sent: it is dropped if the sender is crashed or closed
 * ({@link DropReason#CRASHED}, {@link DropReason#CLOSED}), if no live transport has the address
 * ({@link DropReason#UNREACHABLE}, or {@code CRASHED} if it crashed), if the link is cut
 * ({@link DropReason#PARTITIONED}) or by the link's loss probability ({@link DropReason#LOST}); otherwise it is
 * scheduled after a delay from the link's range, and a second copy too with the duplication probability. When a
 * copy is due it is still dropped if the link has been cut meanwhile, or the receiver crashed, closed or restarted
 * since (in-flight messages to a crashed node are lost). A message to the sender's own address skips the link.
 *
 * <p><b>Determinism.</b> Every random draw comes from the given {@link Random}, four per message sent over a link,
 * in the order of calls. So the same seed and the same calls, on a deterministic scheduler, give the same deliveries
 * in the same order: a failing schedule replays from its seed.
 *
 * <p><b>Where it lives.</b> In {@code baton-peer}'s main code, not in {@code baton-testkit}: {@code baton-peer}'s own
 * tests depend on the testkit, and the testkit would have to depend on {@code baton-peer} for {@link Transport},
 * a cycle Maven forbids. It is a supported in-memory transport for tests, not a production one.
 *
 * @param <M> the protocol's message type
 */
public final class SimulatedNetwork<M> {

    private record Link(PeerAddress from, PeerAddress to) {
    }

    private final Scheduler scheduler;
    private final Clock clock;
    private final Random random;
    private final MessageCodec<M> codec;
    private final int maxMessageSize;
    private final List<NetworkListener<M>> listeners = new CopyOnWriteArrayList<>();

    private LinkConditions defaultLink;
    private final Map<Link, LinkConditions> linkConditions = new HashMap<>();
    private final Set<Link> cuts = new HashSet<>();
    private Map<PeerAddress, Integer> partitionSides = Map.of();
    private final Map<PeerAddress, SimulatedTransport<M>> nodes = new LinkedHashMap<>();
    private final Map<Link, Long> lastDueNanos = new HashMap<>();

    private SimulatedNetwork(Builder<M> builder) {
        this.scheduler = builder.scheduler;
        this.clock = builder.clock;
        this.random = builder.random;
        this.codec = builder.codec;
        this.maxMessageSize = builder.maxMessageSize;
        this.defaultLink = builder.defaultLink;
    }

    /**
     * A builder for a network on {@code scheduler} (which delivers), {@code clock} (the same time the scheduler runs
     * on: it stamps events and orders FIFO links) and {@code random} (every fault and delay; seed it).
     */
    public static <M> Builder<M> builder(Scheduler scheduler, Clock clock, Random random) {
        return new Builder<>(scheduler, clock, random);
    }

    // ---- nodes ----

    /**
     * A new transport for the node at {@code address}, live at once.
     *
     * @throws IllegalStateException if a live transport already has this address (use {@link #restart})
     */
    public synchronized Transport<M> transport(PeerAddress address) {
        Objects.requireNonNull(address, "address");
        SimulatedTransport<M> existing = nodes.get(address);
        if (existing != null && existing.isLive()) {
            throw new IllegalStateException(address + " already has a live transport: crash or close it, or restart it");
        }
        SimulatedTransport<M> transport = new SimulatedTransport<>(this, address);
        nodes.put(address, transport);
        return transport;
    }

    /**
     * Crashes the node: its transport stops sending and receiving (sends are dropped, its handler is never called
     * again) and messages in flight to it are lost. What the node's protocol does is not the network's business: stop
     * driving it.
     *
     * @throws IllegalArgumentException if no transport has this address
     */
    public synchronized void crash(PeerAddress address) {
        SimulatedTransport<M> node = nodes.get(address);
        if (node == null) {
            throw new IllegalArgumentException("no node at " + address);
        }
        node.crashed = true;
    }

    /**
     * Crashes the node if it is live, and gives a fresh transport on the same address (no handler, zeroed counters).
     * Whether the restarted node keeps its state is up to the protocol using it.
     */
    public synchronized Transport<M> restart(PeerAddress address) {
        SimulatedTransport<M> node = nodes.get(address);
        if (node != null && node.isLive()) {
            node.crashed = true;
        }
        SimulatedTransport<M> fresh = new SimulatedTransport<>(this, address);
        nodes.put(address, fresh);
        return fresh;
    }

    /** True if the node at {@code address} has crashed (and not restarted since). */
    public synchronized boolean isCrashed(PeerAddress address) {
        SimulatedTransport<M> node = nodes.get(address);
        return node != null && node.crashed;
    }

    /** Every address that has had a transport, in creation order. */
    public synchronized Set<PeerAddress> nodes() {
        return Collections.unmodifiableSet(new LinkedHashSet<>(nodes.keySet()));
    }

    synchronized void closeTransport(SimulatedTransport<M> transport) {
        transport.closed = true;
    }

    // ---- links and faults ----

    /** Conditions for links that have none of their own, from now on. */
    public synchronized void setDefaultLink(LinkConditions conditions) {
        this.defaultLink = Objects.requireNonNull(conditions, "conditions");
    }

    /** Conditions for messages from {@code from} to {@code to} (one direction), from now on. */
    public synchronized void setLink(PeerAddress from, PeerAddress to, LinkConditions conditions) {
        linkConditions.put(new Link(from, to), Objects.requireNonNull(conditions, "conditions"));
    }

    /** Conditions for both directions between {@code a} and {@code b}. */
    public synchronized void setLinks(PeerAddress a, PeerAddress b, LinkConditions conditions) {
        setLink(a, b, conditions);
        setLink(b, a, conditions);
    }

    /** Back to the default conditions for messages from {@code from} to {@code to}. */
    public synchronized void clearLink(PeerAddress from, PeerAddress to) {
        linkConditions.remove(new Link(from, to));
    }

    /** The conditions in force from {@code from} to {@code to}. */
    public synchronized LinkConditions conditions(PeerAddress from, PeerAddress to) {
        return linkConditions.getOrDefault(new Link(from, to), defaultLink);
    }

    /**
     * Splits the network: nodes in different sides cannot reach each other, in either direction. A node named in no
     * side keeps all its links. Replaces the previous partition (one-way cuts stay).
     *
     * @throws IllegalArgumentException if a node is named in two sides
     */
    @SafeVarargs
    public final synchronized void partition(Set<PeerAddress>... sides) {
        Map<PeerAddress, Integer> assignment = new HashMap<>();
        for (int i = 0; i < sides.length; i++) {
            for (PeerAddress address : sides[i]) {
                Integer previous = assignment.put(address, i);
                if (previous != null && previous != i) {
                    throw new IllegalArgumentException(address + " is in two sides of the partition");
                }
            }
        }
        partitionSides = assignment;
    }

    /** Cuts messages from {@code from} to {@code to} only; the other direction still works. */
    public synchronized void cut(PeerAddress from, PeerAddress to) {
        cuts.add(new Link(from, to));
    }

    /** Undoes {@link #cut(PeerAddress, PeerAddress)} for this direction. */
    public synchronized void restore(PeerAddress from, PeerAddress to) {
        cuts.remove(new Link(from, to));
    }

    /** Removes the partition and every one-way cut. Link conditions (delay, loss) stay. */
    public synchronized void heal() {
        partitionSides = Map.of();
        cuts.clear();
    }

    /** True if messages from {@code from} to {@code to} are cut now (partition or one-way cut). */
    public synchronized boolean isCut(PeerAddress from, PeerAddress to) {
        if (cuts.contains(new Link(from, to))) {
            return true;
        }
        Integer a = partitionSides.get(from);
        Integer b = partitionSides.get(to);
        return a != null && b != null && !a.equals(b);
    }

    // ---- tracing ----

    /** Adds a listener that sees every send, delivery and drop. */
    public void addListener(NetworkListener<M> listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    public void removeListener(NetworkListener<M> listener) {
        listeners.remove(listener);
    }

    private void emit(NetworkEvent<M> event) {
        for (NetworkListener<M> listener : listeners) {
            listener.onEvent(event);
        }
    }

    // ---- moving messages ----

    synchronized void send(SimulatedTransport<M> sender, PeerAddress to, M original) {
        PeerAddress from = sender.local();
        M message = codec == null ? original : roundTrip(original);
        long now = clock.nanoTime();
        if (!sender.isLive()) {
            dropped(sender, from, to, message, sender.crashed ? DropReason.CRASHED : DropReason.CLOSED);
            return;
        }
        sender.counters.sent();
        emit(new NetworkEvent.Sent<>(now, from, to, message));
        SimulatedTransport<M> receiver = nodes.get(to);
        if (to.equals(from)) {
            scheduler.execute(() -> arrive(sender, receiver, message, false));
            return;
        }
        LinkConditions conditions = conditions(from, to);
        // Always four draws, whatever happens to this message, so one fault does not shift every later draw.
        double lossRoll = random.nextDouble();
        double duplicateRoll = random.nextDouble();
        long firstDelay = delayNanos(conditions);
        long secondDelay = delayNanos(conditions);
        if (receiver == null || !receiver.isLive()) {
            dropped(sender, from, to, message, receiver != null && receiver.crashed ? DropReason.CRASHED
                    : receiver != null ? DropReason.CLOSED : DropReason.UNREACHABLE);
            return;
        }
        if (isCut(from, to)) {
            dropped(sender, from, to, message, DropReason.PARTITIONED);
            return;
        }
        if (lossRoll < conditions.lossProbability()) {
            dropped(sender, from, to, message, DropReason.LOST);
            return;
        }
        schedule(sender, receiver, message, conditions, now, firstDelay, false);
        if (duplicateRoll < conditions.duplicationProbability()) {
            schedule(sender, receiver, message, conditions, now, secondDelay, true);
        }
    }

    private void schedule(SimulatedTransport<M> sender, SimulatedTransport<M> receiver, M message,
            LinkConditions conditions, long now, long delay, boolean duplicate) {
        long due = now + delay;
        if (conditions.fifo()) {
            Link link = new Link(sender.local(), receiver.local());
            due = Math.max(due, lastDueNanos.getOrDefault(link, Long.MIN_VALUE));
            lastDueNanos.put(link, due);
        }
        scheduler.schedule(Duration.ofNanos(due - now), () -> arrive(sender, receiver, message, duplicate));
    }

    private long delayNanos(LinkConditions conditions) {
        long min = conditions.minDelay().toNanos();
        long span = conditions.maxDelay().toNanos() - min;
        return min + (long) (random.nextDouble() * span);
    }

    private void arrive(SimulatedTransport<M> sender, SimulatedTransport<M> receiver, M message, boolean duplicate) {
        PeerAddress from = sender.local();
        PeerAddress to = receiver == null ? from : receiver.local();
        MessageHandler<M> handler;
        synchronized (this) {
            SimulatedTransport<M> current = nodes.get(to);
            if (current != receiver || !receiver.isLive()) {
                dropped(sender, from, to, message,
                        receiver != null && receiver.closed && current == receiver ? DropReason.CLOSED : DropReason.CRASHED);
                return;
            }
            if (!from.equals(to) && isCut(from, to)) {
                dropped(sender, from, to, message, DropReason.PARTITIONED);
                return;
            }
            handler = receiver.handler;
            if (handler == null) {
                receiver.counters.dropped(DropReason.NO_HANDLER);
                emit(new NetworkEvent.Dropped<>(clock.nanoTime(), from, to, message, DropReason.NO_HANDLER));
                return;
            }
            receiver.counters.received();
            emit(new NetworkEvent.Delivered<>(clock.nanoTime(), from, to, message, duplicate));
        }
        handler.onMessage(from, message);
    }

    private void dropped(SimulatedTransport<M> sender, PeerAddress from, PeerAddress to, M message, DropReason reason) {
        sender.counters.dropped(reason);
        emit(new NetworkEvent.Dropped<>(clock.nanoTime(), from, to, message, reason));
    }

    private M roundTrip(M message) {
        byte[] bytes = codec.encode(message);
        if (bytes.length + 1 > maxMessageSize) {
            throw new IllegalArgumentException(message.getClass().getSimpleName() + " encodes to " + bytes.length
                    + " bytes, more than the frame limit of " + maxMessageSize + " (maxFrameSize)");
        }
        try {
            return codec.decode(bytes);
        } catch (MalformedMessageException e) {
            throw new IllegalStateException("codec cannot decode the " + message.getClass().getSimpleName()
                    + " it encoded: " + e.getMessage(), e);
        }
    }

    /** Configuration of a {@link SimulatedNetwork}. */
    public static final class Builder<M> {
        private final Scheduler scheduler;
        private final Clock clock;
        private final Random random;
        private LinkConditions defaultLink = LinkConditions.defaults();
        private MessageCodec<M> codec;
        private int maxMessageSize = 1 << 20;

        private Builder(Scheduler scheduler, Clock clock, Random random) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            this.clock = Objects.requireNonNull(clock, "clock");
            this.random = Objects.requireNonNull(random, "random");
        }

        /** Conditions of every link without its own. Default {@link LinkConditions#defaults()}: 1-10 ms, no loss. */
        public Builder<M> defaultLink(LinkConditions conditions) {
            this.defaultLink = Objects.requireNonNull(conditions, "conditions");
            return this;
        }

        /**
         * Passes every message through {@code codec} (encode, then decode; the receiver gets the decoded copy), so a
         * codec bug shows up in simulation: a message that cannot be encoded throws {@link IllegalArgumentException}
         * from {@code send}, one that cannot be decoded back throws {@link IllegalStateException}. Default: none,
         * messages are passed as they are.
         */
        public Builder<M> codec(MessageCodec<M> codec) {
            this.codec = codec;
            return this;
        }

        /** With a codec, the frame limit encoded messages must fit, as in {@code NettyTransport}. Default 1 MiB. */
        public Builder<M> maxFrameSize(int bytes) {
            if (bytes < 2) {
                throw new IllegalArgumentException("maxFrameSize must be at least 2 bytes, was " + bytes);
            }
            this.maxMessageSize = bytes;
            return this;
        }

        public SimulatedNetwork<M> build() {
            return new SimulatedNetwork<>(this);
        }
    }
}

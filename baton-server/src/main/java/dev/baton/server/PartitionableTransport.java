package dev.baton.server;

import dev.baton.peer.transport.DropReason;
import dev.baton.peer.transport.MessageHandler;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import dev.baton.peer.transport.TransportStats;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Transport} that the fault harness can cut from chosen peers: while a peer is in the partition, every
 * protocol message to it and from it is dropped, as if the network between the two were down, and the protocol above
 * sees only silence. The connections themselves stay up (the partition is of messages, not of TCP), so healing takes
 * effect at the next message, without a reconnect.
 *
 * <p>Wrapped around a serverless backend's {@code NettyTransport} only with {@code --chaos-hooks}; the node's stdin
 * commands {@code partition HOST:PORT,...} and {@code heal} drive it. Peers are matched by the address they listen on,
 * exactly as spelled in their {@code --listen} (that is the {@code from} a transport reports, and the address a
 * protocol sends to). Dropped messages count in {@link #stats()} as {@link DropReason#PARTITIONED}, in both
 * directions.
 *
 * @param <M> the protocol's message type
 */
final class PartitionableTransport<M> implements Transport<M>, Partitions {

    private final Transport<M> delegate;
    private final AtomicLong dropped = new AtomicLong();
    private volatile Set<PeerAddress> cut = Set.of();

    PartitionableTransport(Transport<M> delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public void partition(Set<PeerAddress> peers) {
        cut = Set.copyOf(peers);
    }

    @Override
    public void heal() {
        cut = Set.of();
    }

    @Override
    public Set<PeerAddress> cut() {
        return cut;
    }

    @Override
    public PeerAddress local() {
        return delegate.local();
    }

    @Override
    public void send(PeerAddress to, M message) {
        if (cut.contains(to)) {
            dropped.incrementAndGet();
            return;
        }
        delegate.send(to, message);
    }

    @Override
    public void setHandler(MessageHandler<M> handler) {
        Objects.requireNonNull(handler, "handler");
        delegate.setHandler((from, message) -> {
            if (cut.contains(from)) {
                dropped.incrementAndGet();
                return;
            }
            handler.onMessage(from, message);
        });
    }

    @Override
    public TransportStats stats() {
        TransportStats stats = delegate.stats();
        Map<DropReason, Long> drops = new EnumMap<>(stats.dropped());
        drops.merge(DropReason.PARTITIONED, dropped.get(), Long::sum);
        return new TransportStats(stats.messagesSent(), stats.messagesReceived(), stats.connectionsOpened(),
                stats.connectionsClosed(), drops, stats.rejected());
    }

    @Override
    public void close() {
        delegate.close();
    }
}

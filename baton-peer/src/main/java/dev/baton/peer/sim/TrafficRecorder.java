package dev.baton.peer.sim;

import dev.baton.peer.transport.DropReason;
import dev.baton.peer.transport.PeerAddress;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

/**
 * A {@link NetworkListener} that counts messages per node: sent by it, delivered to it, and drops by reason. For
 * benchmarks ("messages per node per heartbeat interval"): {@link #reset()} at the start of an interval, read at its
 * end. Thread-safe.
 *
 * @param <M> the protocol's message type
 */
public final class TrafficRecorder<M> implements NetworkListener<M> {

    private final Map<PeerAddress, Long> sent = new HashMap<>();
    private final Map<PeerAddress, Long> delivered = new HashMap<>();
    private final Map<DropReason, Long> dropped = new EnumMap<>(DropReason.class);
    private final Map<Class<?>, Long> sentByType = new HashMap<>();

    @Override
    public synchronized void onEvent(NetworkEvent<M> event) {
        if (event instanceof NetworkEvent.Sent<M> s) {
            sent.merge(s.from(), 1L, Long::sum);
            sentByType.merge(s.message().getClass(), 1L, Long::sum);
        } else if (event instanceof NetworkEvent.Delivered<M> d) {
            delivered.merge(d.to(), 1L, Long::sum);
        } else if (event instanceof NetworkEvent.Dropped<M> d) {
            dropped.merge(d.reason(), 1L, Long::sum);
        }
    }

    /** Messages {@code node} sent since the last reset. */
    public synchronized long sentBy(PeerAddress node) {
        return sent.getOrDefault(node, 0L);
    }

    /** Messages delivered to {@code node} since the last reset, duplicates included. */
    public synchronized long deliveredTo(PeerAddress node) {
        return delivered.getOrDefault(node, 0L);
    }

    /** Messages (or copies) dropped for {@code reason} since the last reset. */
    public synchronized long dropped(DropReason reason) {
        return dropped.getOrDefault(reason, 0L);
    }

    /** Messages sent per node since the last reset. */
    public synchronized Map<PeerAddress, Long> sentPerNode() {
        return Map.copyOf(sent);
    }

    /** Messages sent per message class since the last reset. */
    public synchronized Map<Class<?>, Long> sentPerType() {
        return Map.copyOf(sentByType);
    }

    /** Total messages sent since the last reset. */
    public synchronized long totalSent() {
        return sent.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Starts a new interval. */
    public synchronized void reset() {
        sent.clear();
        delivered.clear();
        dropped.clear();
        sentByType.clear();
    }
}

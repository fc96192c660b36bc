package dev.baton.peer.transport;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * A snapshot of a transport's counters, each counted since the transport was created.
 *
 * <p>A message handed to {@link Transport#send} ends up counted once as sent or as dropped (while it waits for a
 * connection it is neither). Sent means handed to the network: written to a connection, or for the simulated network
 * put on the link; it may still be lost afterwards, which a TCP sender cannot see. The simulated network, which can
 * see it, counts a message it loses, or that finds its receiver down, in the <em>sender's</em> dropped counters as
 * well (so {@code sent} there includes messages later dropped). A message delivered with no handler set is dropped on
 * the receiver. Connections count every TCP connection opened or closed, in both directions, handshake or not.
 *
 * @param messagesSent messages handed to the network
 * @param messagesReceived messages decoded and passed to the handler
 * @param connectionsOpened TCP connections that became active (accepted or dialled)
 * @param connectionsClosed TCP connections that closed
 * @param dropped messages dropped, by reason; every reason present
 * @param rejected connections closed because of what the peer sent, by reason; every reason present
 */
public record TransportStats(
        long messagesSent,
        long messagesReceived,
        long connectionsOpened,
        long connectionsClosed,
        Map<DropReason, Long> dropped,
        Map<RejectReason, Long> rejected) {

    /** Copies the maps, filling absent reasons with zero. */
    public TransportStats {
        EnumMap<DropReason, Long> d = new EnumMap<>(DropReason.class);
        for (DropReason r : DropReason.values()) {
            d.put(r, dropped.getOrDefault(r, 0L));
        }
        EnumMap<RejectReason, Long> j = new EnumMap<>(RejectReason.class);
        for (RejectReason r : RejectReason.values()) {
            j.put(r, rejected.getOrDefault(r, 0L));
        }
        dropped = Collections.unmodifiableMap(d);
        rejected = Collections.unmodifiableMap(j);
    }

    /** Messages dropped, all reasons together. */
    public long messagesDropped() {
        return dropped.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Messages dropped for {@code reason}. */
    public long dropped(DropReason reason) {
        return dropped.get(reason);
    }

    /** Connections closed for {@code reason}. */
    public long rejected(RejectReason reason) {
        return rejected.get(reason);
    }

    /** Rejected connections, all reasons together. */
    public long framesRejected() {
        return rejected.values().stream().mapToLong(Long::longValue).sum();
    }
}

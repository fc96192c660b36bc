package dev.baton.server;

import dev.baton.peer.transport.DropReason;
import dev.baton.peer.transport.Transport;
import dev.baton.peer.transport.RejectReason;
import dev.baton.peer.transport.TransportStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.function.ToDoubleFunction;

/**
 * The peer transport's counters on {@code /metrics}, for the serverless backends ({@code peer}, {@code bully}):
 * {@code baton_peer_messages_sent_total}, {@code baton_peer_messages_received_total},
 * {@code baton_peer_messages_dropped_total{reason}}, {@code baton_peer_connections_rejected_total{reason}} (a
 * connection closed for what the peer sent: bad frames, wrong cluster, failed authentication, ...) and
 * {@code baton_peer_connections_open}.
 */
final class PeerTransportMetrics {

    private PeerTransportMetrics() {
    }

    static void bind(MeterRegistry registry, Tags tags, Transport<?> transport) {
        counter(registry, transport, "baton.peer.messages.sent", "Messages handed to the network", tags,
                TransportStats::messagesSent);
        counter(registry, transport, "baton.peer.messages.received", "Messages received from peers and decoded",
                tags, TransportStats::messagesReceived);
        for (DropReason reason : DropReason.values()) {
            counter(registry, transport, "baton.peer.messages.dropped", "Messages dropped instead of sent, by reason",
                    tags.and("reason", reason.label()), stats -> stats.dropped(reason));
        }
        for (RejectReason reason : RejectReason.values()) {
            counter(registry, transport, "baton.peer.connections.rejected",
                    "Peer connections closed because of what the peer sent, by reason",
                    tags.and("reason", reason.label()), stats -> stats.rejected(reason));
        }
        Gauge.builder("baton.peer.connections.open", transport,
                        t -> {
                            TransportStats stats = t.stats();
                            return stats.connectionsOpened() - stats.connectionsClosed();
                        })
                .description("Peer TCP connections open now, handshake or not")
                .tags(tags).register(registry);
    }

    private static void counter(MeterRegistry registry, Transport<?> transport, String name, String description,
            Tags tags, ToDoubleFunction<TransportStats> read) {
        FunctionCounter.builder(name, transport, t -> read.applyAsDouble(t.stats()))
                .description(description).tags(tags).register(registry);
    }
}

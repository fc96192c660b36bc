package dev.baton.peer.bully;

import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

/**
 * A process whose part the test plays by hand on the simulated network: it records what it receives and may answer
 * each message with a reply of the test's choosing.
 */
final class FakePeer {

    record Received(long atNanos, PeerAddress from, BullyMessage message) {
    }

    final PeerAddress address;
    private final Transport<BullyMessage> transport;
    private final List<Received> inbox = new CopyOnWriteArrayList<>();

    /** A peer that answers each message with {@code reply.apply(from, message)} (null: no answer). */
    FakePeer(BullyCluster cluster, PeerAddress address, BiFunction<PeerAddress, BullyMessage, BullyMessage> reply) {
        this.address = address;
        this.transport = cluster.network.transport(address);
        transport.setHandler((from, message) -> {
            inbox.add(new Received(cluster.clock.nanoTime(), from, message));
            BullyMessage answer = reply.apply(from, message);
            if (answer != null) {
                transport.send(from, answer);
            }
        });
    }

    void send(PeerAddress to, BullyMessage message) {
        transport.send(to, message);
    }

    List<Received> inbox() {
        return inbox;
    }

    <T extends BullyMessage> List<T> received(Class<T> type) {
        return inbox.stream().map(Received::message).filter(type::isInstance).map(type::cast)
                .collect(Collectors.toList());
    }
}

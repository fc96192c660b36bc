package dev.baton.peer.quorum;

import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** A node whose part the test plays by hand on the simulated network: it records what it receives. */
final class FakePeer {

    record Received(PeerAddress from, QuorumMessage message) {
    }

    final PeerAddress address;
    private final Transport<QuorumMessage> transport;
    private final List<Received> inbox = new ArrayList<>();

    FakePeer(SimCluster cluster, PeerAddress address) {
        this.address = address;
        this.transport = cluster.network.transport(address);
        transport.setHandler((from, message) -> inbox.add(new Received(from, message)));
    }

    void send(PeerAddress to, QuorumMessage message) {
        transport.send(to, message);
    }

    <T extends QuorumMessage> List<T> received(Class<T> type) {
        return inbox.stream().map(Received::message).filter(type::isInstance).map(type::cast)
                .collect(Collectors.toList());
    }

    <T extends QuorumMessage> T last(Class<T> type) {
        List<T> all = received(type);
        if (all.isEmpty()) {
            throw new AssertionError(address + " received no " + type.getSimpleName() + "; inbox: " + inbox);
        }
        return all.get(all.size() - 1);
    }

    void clear() {
        inbox.clear();
    }
}

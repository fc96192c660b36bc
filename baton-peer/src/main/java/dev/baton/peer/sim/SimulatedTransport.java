package dev.baton.peer.sim;

import dev.baton.peer.transport.MessageHandler;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import dev.baton.peer.transport.TransportStats;
import dev.baton.peer.transport.internal.TransportCounters;
import java.util.Objects;

/** One node's view of a {@link SimulatedNetwork}. State is guarded by the network's lock. */
final class SimulatedTransport<M> implements Transport<M> {

    private final SimulatedNetwork<M> network;
    private final PeerAddress address;
    final TransportCounters counters = new TransportCounters();
    volatile MessageHandler<M> handler;
    boolean crashed;
    boolean closed;

    SimulatedTransport(SimulatedNetwork<M> network, PeerAddress address) {
        this.network = network;
        this.address = address;
    }

    boolean isLive() {
        return !crashed && !closed;
    }

    @Override
    public PeerAddress local() {
        return address;
    }

    @Override
    public void send(PeerAddress to, M message) {
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(message, "message");
        network.send(this, to, message);
    }

    @Override
    public void setHandler(MessageHandler<M> handler) {
        this.handler = handler;
    }

    @Override
    public TransportStats stats() {
        return counters.snapshot();
    }

    @Override
    public void close() {
        network.closeTransport(this);
    }

    @Override
    public String toString() {
        return "SimulatedTransport[" + address + (crashed ? ", crashed" : closed ? ", closed" : "") + "]";
    }
}

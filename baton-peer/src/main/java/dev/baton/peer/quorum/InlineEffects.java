package dev.baton.peer.quorum;

import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;

/**
 * The synchronous driver: every effect is done the moment the protocol asks for it, in the order asked, on the
 * protocol's thread. A save that fails throws, so the step stops before anything that depended on it is sent. Used
 * with {@link InMemoryDurableState} (the simulation, tests, nodes without a data directory): the order of sends and
 * timers is exactly the protocol's, so a simulated schedule replays identically.
 */
final class InlineEffects implements Effects {

    private final DurableState durable;
    private final Transport<QuorumMessage> transport;

    InlineEffects(DurableState durable, Transport<QuorumMessage> transport) {
        this.durable = durable;
        this.transport = transport;
    }

    @Override
    public void persist(AcceptorState state) {
        durable.store(state);
    }

    @Override
    public void send(PeerAddress to, QuorumMessage message) {
        transport.send(to, message);
    }

    @Override
    public void tell(Runnable notice) {
        notice.run();
    }

    @Override
    public void afterDurable(Runnable step) {
        step.run();
    }

    @Override
    public void close(Runnable whenDrained) {
        whenDrained.run();
    }
}

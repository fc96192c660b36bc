package dev.baton.peer.sim;

/**
 * Sees every send, delivery and drop in a {@link SimulatedNetwork}: for traces, message counts per node and interval
 * ({@link TrafficRecorder}), or invariant checks. Called synchronously, inside the network's own call (a
 * {@code send}, or the scheduler task that delivers), with the network's lock held: keep it quick and do not call the
 * network from it.
 *
 * @param <M> the protocol's message type
 */
@FunctionalInterface
public interface NetworkListener<M> {

    void onEvent(NetworkEvent<M> event);
}

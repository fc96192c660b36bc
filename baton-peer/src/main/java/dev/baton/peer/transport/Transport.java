package dev.baton.peer.transport;

/**
 * Sends a protocol's messages to peers and hands it the messages peers send: the only way Baton's serverless
 * protocols talk to each other.
 *
 * <p>Two implementations run the same protocol code unchanged: {@link NettyTransport} over TCP, and the simulated
 * network ({@code dev.baton.peer.sim.SimulatedNetwork}) under virtual time with seeded faults.
 *
 * <p><b>Delivery is best effort.</b> {@link #send} never blocks and never throws for a network condition: a message
 * to a peer that cannot be reached, or beyond a full queue, is dropped and counted in {@link #stats()}. Messages may
 * be lost, and in the simulated network duplicated and reordered; protocols carry their own retries, timeouts and
 * versions. A message to {@link #local()} itself is handed to this transport's own handler, asynchronously, on a
 * transport thread.
 *
 * @param <M> the protocol's message type
 */
public interface Transport<M> extends AutoCloseable {

    /** This node's own address: the one peers send to, and the {@code from} they see. */
    PeerAddress local();

    /**
     * Sends {@code message} to {@code to}, fire-and-forget. Connects lazily if there is no connection yet, queueing a
     * bounded number of messages meanwhile.
     *
     * @throws IllegalArgumentException if the codec cannot encode the message or it is larger than the frame limit
     *     (a bug in the caller, never a network condition)
     * @throws IllegalStateException if the transport was never started
     */
    void send(PeerAddress to, M message);

    /**
     * Sets the one handler that receives every message; replaces the previous one. Set it before messages can arrive:
     * a message that arrives with no handler is dropped ({@link DropReason#NO_HANDLER}). See {@link MessageHandler}
     * for the thread it runs on.
     */
    void setHandler(MessageHandler<M> handler);

    /** A snapshot of the counters. */
    TransportStats stats();

    /**
     * Stops sending and receiving, closes every connection and releases threads. Messages still queued are dropped
     * ({@link DropReason#CLOSED}). Idempotent.
     */
    @Override
    void close();
}

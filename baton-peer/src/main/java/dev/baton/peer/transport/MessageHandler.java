package dev.baton.peer.transport;

/**
 * Receives the messages that reach a {@link Transport}.
 *
 * <p><b>Thread.</b> Called on a transport thread: a Netty event loop for {@link NettyTransport}, a task of the
 * network's scheduler for the simulated network. With several worker threads, messages from different peers may
 * arrive concurrently. So a handler must not block and must not touch protocol state directly: a protocol hands
 * the message to its own {@code Scheduler} ({@code scheduler.execute(() -> machine.onMessage(from, message))}) and
 * returns. A handler that throws is logged (Netty) and does not affect the connection.
 *
 * <p><b>Order and delivery.</b> Messages from one peer arrive in the order they were sent while they travel over one
 * connection; there is no order across peers, across reconnections, or in the simulated network unless its link is
 * FIFO. Messages may be lost (a connection breaks, a peer restarts, a queue overflows) and, in the simulated network,
 * duplicated: protocols must tolerate both (retry, idempotent handling, versions).
 *
 * @param <M> the protocol's message type
 */
@FunctionalInterface
public interface MessageHandler<M> {

    /**
     * One message.
     *
     * @param from the sender's own listen address, as it gave it in the handshake (authenticated when a shared
     *     secret is configured)
     * @param message the decoded message
     */
    void onMessage(PeerAddress from, M message);
}

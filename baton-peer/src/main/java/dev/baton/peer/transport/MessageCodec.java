package dev.baton.peer.transport;

/**
 * Turns a protocol's messages into bytes and back.
 *
 * <p>A transport encodes on the sender's thread (so a message that cannot be encoded fails the caller of
 * {@link Transport#send}) and decodes on a transport thread. {@link #decode} meets bytes from the network, so it
 * must treat them as hostile: refuse anything it does not fully understand with a {@link MalformedMessageException}
 * rather than guess. Implementations must be thread-safe.
 *
 * @param <M> the protocol's message type, usually a sealed interface of records
 */
public interface MessageCodec<M> {

    /**
     * Encodes {@code message}.
     *
     * @throws IllegalArgumentException if the message cannot be encoded (a bug in the caller, not a network event)
     */
    byte[] encode(M message);

    /**
     * Decodes one message.
     *
     * @throws MalformedMessageException if the bytes are not exactly one valid message; its message says why
     */
    M decode(byte[] bytes) throws MalformedMessageException;
}

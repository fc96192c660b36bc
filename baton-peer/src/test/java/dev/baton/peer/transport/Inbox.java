package dev.baton.peer.transport;

import dev.baton.peer.testing.TestMessage;
import java.util.ArrayList;
import java.util.List;

/** A handler that keeps what it receives, for assertions from the test thread. */
final class Inbox implements MessageHandler<TestMessage> {

    record Received(PeerAddress from, TestMessage message) {
    }

    private final List<Received> received = new ArrayList<>();

    @Override
    public synchronized void onMessage(PeerAddress from, TestMessage message) {
        received.add(new Received(from, message));
    }

    synchronized List<Received> all() {
        return List.copyOf(received);
    }

    synchronized List<TestMessage> from(PeerAddress sender) {
        return received.stream().filter(r -> r.from().equals(sender)).map(Received::message).toList();
    }

    synchronized int size() {
        return received.size();
    }
}

package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.peer.transport.MessageHandler;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import dev.baton.peer.transport.TransportStats;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The harness's message faults on a serverless node's transport: each mode, in both directions, and healing. */
class MessageChaosTransportTest {

    private static final PeerAddress SELF = PeerAddress.of("127.0.0.1", 7401);
    private static final PeerAddress A = PeerAddress.of("127.0.0.1", 7402);
    private static final PeerAddress B = PeerAddress.of("127.0.0.1", 7403);
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final Wire wire = new Wire();
    private final MessageChaosTransport<String> transport = new MessageChaosTransport<>(wire, new Random(7));
    private final List<String> handed = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        transport.close();
    }

    @Test
    void untouchedMessagesGoStraightThrough() {
        transport.setHandler((from, message) -> handed.add(message));
        transport.send(A, "a1");
        wire.deliver(A, "in1");

        assertThat(wire.sent).containsExactly("a1");
        assertThat(handed).containsExactly("in1");
        assertThat(transport.setting()).isEqualTo(MessageChaos.Setting.NONE);
    }

    @Test
    void duplicateDeliversEachMessageToAndFromThePeersTwice() {
        transport.setHandler((from, message) -> handed.add(message));
        transport.mangle(new MessageChaos.Setting(MessageChaos.Mode.DUPLICATE, Duration.ofMillis(20), Set.of(A)));
        transport.send(A, "a1");
        transport.send(B, "b1");
        wire.deliver(A, "in-a");
        wire.deliver(B, "in-b");

        await().atMost(WAIT).until(() -> wire.sent.size() == 3 && handed.size() == 3);
        assertThat(wire.sent).containsExactlyInAnyOrder("a1", "a1", "b1");
        assertThat(handed).containsExactlyInAnyOrder("in-a", "in-a", "in-b");
    }

    @Test
    void delayHoldsEveryMessageAndKeepsTheirOrder() {
        transport.mangle(new MessageChaos.Setting(MessageChaos.Mode.DELAY, Duration.ofMillis(150), Set.of()));
        long sent = System.nanoTime();
        for (int i = 1; i <= 5; i++) {
            transport.send(i % 2 == 0 ? A : B, "m" + i);
        }
        assertThat(wire.sent).as("nothing yet").isEmpty();

        await().atMost(WAIT).until(() -> wire.sent.size() == 5);
        assertThat(System.nanoTime() - sent).isGreaterThanOrEqualTo(Duration.ofMillis(150).toNanos());
        assertThat(wire.sent).containsExactly("m1", "m2", "m3", "m4", "m5");
    }

    @Test
    void reorderLetsLaterMessagesOvertakeEarlierOnes() {
        transport.mangle(new MessageChaos.Setting(MessageChaos.Mode.REORDER, Duration.ofMillis(100), Set.of()));
        List<String> order = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 50; i++) {
            String message = "m" + i;
            order.add(message);
            transport.send(A, message);
        }

        await().atMost(WAIT).until(() -> wire.sent.size() == 50);
        assertThat(wire.sent).containsExactlyInAnyOrderElementsOf(order).isNotEqualTo(order);
    }

    @Test
    void healingDeliversAtOnceAgain() {
        transport.mangle(new MessageChaos.Setting(MessageChaos.Mode.DELAY, Duration.ofSeconds(30), Set.of()));
        transport.send(A, "held");
        transport.mangle(MessageChaos.Setting.NONE);
        transport.send(A, "straight");

        assertThat(wire.sent).containsExactly("straight");
    }

    /** The transport under test's wire: records what is sent, delivers what the test says arrived. */
    private static final class Wire implements Transport<String> {
        final List<String> sent = new CopyOnWriteArrayList<>();
        private volatile MessageHandler<String> handler;

        void deliver(PeerAddress from, String message) {
            handler.onMessage(from, message);
        }

        @Override
        public PeerAddress local() {
            return SELF;
        }

        @Override
        public void send(PeerAddress to, String message) {
            sent.add(message);
        }

        @Override
        public void setHandler(MessageHandler<String> value) {
            handler = value;
        }

        @Override
        public TransportStats stats() {
            return new TransportStats(sent.size(), 0, 0, 0, Map.of(), Map.of());
        }

        @Override
        public void close() {
        }
    }
}

package dev.baton.work.internal.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.testkit.FakeClock;
import dev.baton.work.worker.WorkerMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Results published several to a message: whole, in order, and nothing lost when a batch is. */
class BatchedStreamsTest {

    private final FakeClock clock = new FakeClock();
    private final BusCodec codec = new BusCodec();

    /** One message on the bus: to whom, and how many results the publisher was told it carries. */
    private record Published(String process, byte[] bytes, int results) {
    }

    /** A bus that records what is published, and refuses the first {@code failures} publishes. */
    private static final class Wire implements OutboundStreams.Publisher {
        final List<Published> messages = new ArrayList<>();
        int failures;

        @Override
        public void publish(String processId, byte[] message) {
            publish(processId, message, 1);
        }

        @Override
        public void publish(String processId, byte[] message, int results) {
            if (failures > 0) {
                failures--;
                throw new IllegalStateException("the store is unreachable");
            }
            messages.add(new Published(processId, message, results));
        }
    }

    private static WorkerMessage.ImageDetection result(int n) {
        return new WorkerMessage.ImageDetection("d;c", "2026-01-01T00:00:00Z",
                new WorkerMessage.Detection(null, null, null, null, "P-" + n, null), 1, "m");
    }

    private OutboundStreams streams(Wire wire, int maxPerMessage) {
        return new OutboundStreams("g", "leader", "term-4", codec, wire, clock, Duration.ofSeconds(1), 1000,
                maxPerMessage);
    }

    /** The results a message carries, in its order. */
    private List<BusMessage.Detection> results(byte[] bytes) throws BusProtocolException {
        BusMessage message = codec.decode(bytes);
        if (message instanceof BusMessage.Detections batch) {
            assertThat(batch.group()).isEqualTo("g");
            return batch.results();
        }
        return List.of((BusMessage.Detection) message);
    }

    private static List<String> plates(List<BusMessage.Detection> results) {
        return results.stream().map(d -> d.data().detection().licensePlateText()).toList();
    }

    @Test
    void resultsWaitForTheFlushAndGoOutInOrderOneMessagePerProcess() throws Exception {
        Wire wire = new Wire();
        OutboundStreams out = streams(wire, 64);
        for (int i = 1; i <= 5; i++) {
            out.send("p2", true, "ws://w", "t", result(i));
            out.send("p3", false, "ws://w", "t", result(100 + i));
        }
        assertThat(wire.messages).isEmpty();
        assertThat(out.hasUnflushed()).isTrue();

        out.flush();

        assertThat(out.hasUnflushed()).isFalse();
        assertThat(wire.messages).extracting(Published::process).containsExactly("p2", "p3");
        assertThat(wire.messages).extracting(Published::results).containsExactly(5, 5);
        List<BusMessage.Detection> toP2 = results(wire.messages.get(0).bytes());
        assertThat(plates(toP2)).containsExactly("P-1", "P-2", "P-3", "P-4", "P-5");
        assertThat(toP2).extracting(BusMessage.Detection::seq).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(toP2).allSatisfy(d -> assertThat(d.global()).isTrue());
        assertThat(plates(results(wire.messages.get(1).bytes()))).containsExactly("P-101", "P-102", "P-103",
                "P-104", "P-105");
    }

    @Test
    void aFullOutboxIsPublishedWithoutWaitingForTheFlush() throws Exception {
        Wire wire = new Wire();
        OutboundStreams out = streams(wire, 4);
        for (int i = 1; i <= 10; i++) {
            out.send("p2", true, "ws://w", "t", result(i));
        }
        assertThat(wire.messages).extracting(Published::results).containsExactly(4, 4);
        out.flush();
        assertThat(wire.messages).extracting(Published::results).containsExactly(4, 4, 2);
        List<String> all = new ArrayList<>();
        for (Published p : wire.messages) {
            all.addAll(plates(results(p.bytes())));
        }
        assertThat(all).containsExactly("P-1", "P-2", "P-3", "P-4", "P-5", "P-6", "P-7", "P-8", "P-9", "P-10");
    }

    @Test
    void aLoneResultIsPublishedAsAPlainDetection() throws Exception {
        Wire wire = new Wire();
        OutboundStreams out = streams(wire, 64);
        out.send("p2", true, "ws://w", "t", result(1));
        out.flush();
        assertThat(codec.decode(wire.messages.get(0).bytes())).isInstanceOf(BusMessage.Detection.class);
    }

    @Test
    void aBatchWhosePublishFailedIsResentWholeAndInOrder() throws Exception {
        Wire wire = new Wire();
        wire.failures = 1;
        OutboundStreams out = streams(wire, 64);
        for (int i = 1; i <= 6; i++) {
            out.send("p2", true, "ws://w", "t", result(i));
        }
        out.flush(); // refused: logged, the results stay kept
        assertThat(wire.messages).isEmpty();
        assertThat(out.pending()).isEqualTo(6);

        clock.advance(Duration.ofSeconds(1));
        out.resendDue();

        assertThat(wire.messages).hasSize(1);
        assertThat(plates(results(wire.messages.get(0).bytes()))).containsExactly("P-1", "P-2", "P-3", "P-4", "P-5",
                "P-6");
        assertThat(out.resent()).isEqualTo(6);
        out.acked("p2", "term-4", 6);
        assertThat(out.pending()).isZero();
    }

    @Test
    void resendingFirstPublishesWhatWasSentBefore() throws Exception {
        Wire wire = new Wire();
        OutboundStreams out = streams(wire, 64);
        out.send("p2", true, "ws://w", "t", result(1)); // lost
        wire.messages.clear();
        out.flush();
        wire.messages.clear();
        clock.advance(Duration.ofSeconds(1));
        out.send("p2", true, "ws://w", "t", result(2)); // sent, not yet flushed

        out.resendDue();

        List<String> order = new ArrayList<>();
        for (Published p : wire.messages) {
            order.addAll(plates(results(p.bytes())));
        }
        assertThat(order).containsExactly("P-2", "P-1");
    }

    @Test
    void everyResultArrivesOnceWhenWholeBatchesAreLost() throws Exception {
        Random loss = new Random(7);
        Wire wire = new Wire();
        OutboundStreams out = streams(wire, 16);
        InboundStreams in = new InboundStreams(8);
        List<String> delivered = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            out.send("p2", true, "ws://w", "t", result(i));
            if (i % 25 == 24) {
                out.flush();
            }
        }
        out.flush();
        for (int round = 0; round < 30 && out.pending() > 0; round++) {
            for (Published p : List.copyOf(wire.messages)) {
                if (loss.nextInt(3) == 0) {
                    continue; // a third of the messages are lost, every result in them
                }
                for (BusMessage.Detection d : results(p.bytes())) {
                    if (in.accept(d.stream(), d.seq(), d.floor())) {
                        delivered.add(d.data().detection().licensePlateText());
                    }
                }
            }
            wire.messages.clear();
            out.acked("p2", "term-4", in.ack("term-4"));
            clock.advance(Duration.ofSeconds(1));
            out.resendDue();
        }
        assertThat(out.pending()).isZero();
        assertThat(delivered).hasSize(200).doesNotHaveDuplicates();
        assertThat(out.resent()).isPositive();
    }

    @Test
    void aProcessThatLeftLosesItsOutboxButItsGlobalResultsComeBack() {
        Wire wire = new Wire();
        OutboundStreams out = streams(wire, 64);
        out.send("p2", true, "ws://w", "t", result(1));
        out.send("p2", false, "ws://w", "t", result(2));
        assertThat(out.dropProcess("p2")).extracting(p -> p.data().detection().licensePlateText())
                .containsExactly("P-1");
        out.flush();
        assertThat(wire.messages).isEmpty();
    }

    @Test
    void aBatchSizeBelowOneIsRefused() {
        assertThatThrownBy(() -> streams(new Wire(), 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxPerMessage must be at least 1, was 0");
    }
}

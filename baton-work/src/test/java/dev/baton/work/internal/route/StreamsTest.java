package dev.baton.work.internal.route;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testkit.FakeClock;
import dev.baton.work.worker.WorkerMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** At-least-once delivery over a bus that loses messages: numbered, acknowledged, re-sent, de-duplicated. */
class StreamsTest {

    private final FakeClock clock = new FakeClock();
    private final BusCodec codec = new BusCodec();

    private static WorkerMessage.ImageDetection result(int n) {
        return new WorkerMessage.ImageDetection("d;c", "2026-01-01T00:00:00Z",
                new WorkerMessage.Detection(null, null, null, null, "P-" + n, null), 1, "m");
    }

    @Test
    void everyResultArrivesOnceOverALossyBus() throws Exception {
        Random loss = new Random(42);
        List<byte[]> wire = new ArrayList<>();
        OutboundStreams out = new OutboundStreams("g", "leader", "term-3", codec, (p, bytes) -> {
            if (loss.nextInt(3) != 0) { // a third is lost
                wire.add(bytes);
            }
        }, clock, Duration.ofSeconds(1), 1000);
        InboundStreams in = new InboundStreams(8);
        List<String> delivered = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            out.send("p2", true, "ws://w", "t", result(i));
        }
        for (int round = 0; round < 30 && out.pending() > 0; round++) {
            for (byte[] bytes : List.copyOf(wire)) {
                BusMessage.Detection d = (BusMessage.Detection) codec.decode(bytes);
                if (in.accept(d.stream(), d.seq())) {
                    delivered.add(d.data().detection().licensePlateText());
                }
            }
            wire.clear();
            if (loss.nextBoolean()) { // acknowledgements get lost too
                out.acked("p2", "term-3", in.ack("term-3"));
            }
            clock.advance(Duration.ofSeconds(1));
            out.resendDue();
        }
        assertThat(out.pending()).isZero();
        assertThat(delivered).hasSize(100).doesNotHaveDuplicates();
        assertThat(out.resent()).isPositive();
        assertThat(in.duplicates()).isPositive();
    }

    @Test
    void aProcessThatNeverAcknowledgesHoldsAtMostTheLimitAndItsGlobalResultsComeBack() {
        OutboundStreams out = new OutboundStreams("g", "leader", "term-1", codec, (p, b) -> { }, clock,
                Duration.ofSeconds(1), 5);
        for (int i = 0; i < 8; i++) {
            out.send("p2", i % 2 == 0, "ws://w", "t", result(i));
        }
        assertThat(out.pending()).isEqualTo(5);
        assertThat(out.dropped()).isEqualTo(3);
        List<OutboundStreams.Pending> back = out.dropProcess("p2");
        assertThat(back).extracting(p -> p.data().detection().licensePlateText()).containsExactly("P-4", "P-6");
        assertThat(out.pending()).isZero();
    }

    /** Hands what was published to {@code in}; returns the results it delivered (new ones only). */
    private List<String> carry(List<byte[]> wire, InboundStreams in) throws BusProtocolException {
        List<String> delivered = new ArrayList<>();
        for (byte[] bytes : List.copyOf(wire)) {
            BusMessage.Detection d = (BusMessage.Detection) codec.decode(bytes);
            if (in.accept(d.stream(), d.seq(), d.floor())) {
                delivered.add(d.data().detection().licensePlateText());
            }
        }
        wire.clear();
        return delivered;
    }

    @Test
    void aProcessThatLeftAndCameBackGetsNewResultsAndAcknowledgesThem() throws Exception {
        List<byte[]> wire = new ArrayList<>();
        OutboundStreams out = new OutboundStreams("g", "leader", "term-5", codec, (p, bytes) -> wire.add(bytes),
                clock, Duration.ofSeconds(1), 100);
        InboundStreams in = new InboundStreams(8);
        out.send("p3", true, "ws://w", "t", result(1));
        out.send("p3", true, "ws://w", "t", result(2));
        assertThat(carry(wire, in)).containsExactly("P-1", "P-2");
        out.acked("p3", "term-5", in.ack("term-5"));
        out.send("p3", true, "ws://w", "t", result(3)); // lost on the bus, then p3 drops out of the registry
        wire.clear();
        assertThat(out.dropProcess("p3")).extracting(p -> p.data().detection().licensePlateText())
                .containsExactly("P-3");

        out.send("p3", true, "ws://w", "t", result(4)); // p3 is back: its stream goes on, not from 1 again
        out.send("p3", true, "ws://w", "t", result(5));
        assertThat(carry(wire, in)).containsExactly("P-4", "P-5");
        out.acked("p3", "term-5", in.ack("term-5")); // past P-3, which was given up
        assertThat(out.pending()).isZero();
    }

    @Test
    void aReceiverThatRestartedMidStreamAcknowledgesWhatItGets() throws Exception {
        List<byte[]> wire = new ArrayList<>();
        OutboundStreams out = new OutboundStreams("g", "leader", "term-6", codec, (p, bytes) -> wire.add(bytes),
                clock, Duration.ofSeconds(1), 100);
        InboundStreams before = new InboundStreams(8);
        for (int i = 1; i <= 3; i++) {
            out.send("p2", false, "ws://w", "t", result(i));
        }
        carry(wire, before);
        out.acked("p2", "term-6", before.ack("term-6"));
        out.send("p2", false, "ws://w", "t", result(4));
        wire.clear(); // lost while p2 restarts

        InboundStreams after = new InboundStreams(8); // the new incarnation knows nothing of the stream
        out.send("p2", false, "ws://w", "t", result(5));
        assertThat(carry(wire, after)).containsExactly("P-5");
        clock.advance(Duration.ofSeconds(1));
        out.resendDue();
        assertThat(carry(wire, after)).containsExactly("P-4");
        out.acked("p2", "term-6", after.ack("term-6"));
        assertThat(out.pending()).isZero();
    }

    @Test
    void resultsDroppedOverTheBoundDoNotHoldAcknowledgementsBack() throws Exception {
        List<byte[]> wire = new ArrayList<>();
        OutboundStreams out = new OutboundStreams("g", "leader", "term-7", codec, (p, bytes) -> wire.add(bytes),
                clock, Duration.ofSeconds(1), 3);
        InboundStreams in = new InboundStreams(8);
        for (int i = 1; i <= 5; i++) {
            out.send("p2", true, "ws://w", "t", result(i));
        }
        wire.remove(0); // P-1 lost; then P-1 and P-2 are dropped over the bound of 3
        assertThat(carry(wire, in)).containsExactly("P-2", "P-3", "P-4", "P-5");
        out.acked("p2", "term-7", in.ack("term-7"));
        assertThat(out.pending()).isZero();
        assertThat(out.dropped()).isEqualTo(2);
    }

    @Test
    void anAcknowledgementOfAnotherStreamIsIgnored() {
        OutboundStreams out = new OutboundStreams("g", "leader", "term-2", codec, (p, b) -> { }, clock,
                Duration.ofSeconds(1), 100);
        out.send("p2", false, "ws://w", "t", result(1));
        out.acked("p2", "term-1", 10);
        assertThat(out.pending()).isEqualTo(1);
        out.acked("p2", "term-2", 1);
        assertThat(out.pending()).isZero();
    }
}

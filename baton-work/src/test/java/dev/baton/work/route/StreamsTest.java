package dev.baton.work.route;

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

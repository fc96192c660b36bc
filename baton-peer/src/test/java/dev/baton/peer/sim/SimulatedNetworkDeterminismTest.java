package dev.baton.peer.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.peer.testing.TestMessage;
import dev.baton.peer.testing.TestMessage.Ping;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** The same seed and the same calls give the same schedule; the link rules hold for every seed. */
class SimulatedNetworkDeterminismTest {

    private static final List<PeerAddress> NODES = List.of(
            PeerAddress.of("n1", 1), PeerAddress.of("n2", 1), PeerAddress.of("n3", 1), PeerAddress.of("n4", 1));

    /** A chatty scenario with every kind of fault; returns the full event trace. */
    static List<NetworkEvent<TestMessage>> scenario(long seed) {
        FakeClock clock = new FakeClock();
        DeterministicScheduler scheduler = new DeterministicScheduler(clock);
        Random random = new Random(seed);
        SimulatedNetwork<TestMessage> network = SimulatedNetwork.<TestMessage>builder(scheduler, clock, random)
                .defaultLink(LinkConditions.delayed(Duration.ofMillis(1), Duration.ofMillis(30)).withLoss(0.1).withDuplication(0.1))
                .build();
        List<NetworkEvent<TestMessage>> trace = new ArrayList<>();
        network.addListener(trace::add);
        Map<PeerAddress, Transport<TestMessage>> transports = new HashMap<>();
        for (PeerAddress node : NODES) {
            Transport<TestMessage> t = network.transport(node);
            // Every node answers each ping with a ping to a random peer, so deliveries drive further sends.
            t.setHandler((from, message) -> {
                if (message instanceof Ping p && p.n() < 6) {
                    transports.get(node).send(NODES.get(random.nextInt(NODES.size())), TestMessage.ping(p.n() + 1));
                }
            });
            transports.put(node, t);
        }
        for (int step = 0; step < 40; step++) {
            PeerAddress from = NODES.get(random.nextInt(NODES.size()));
            transports.get(from).send(NODES.get(random.nextInt(NODES.size())), TestMessage.ping(0));
            switch (step % 10) {
                case 3 -> network.partition(Set.of(NODES.get(0), NODES.get(1)), Set.of(NODES.get(2), NODES.get(3)));
                case 5 -> network.heal();
                case 6 -> network.crash(NODES.get(step % 4));
                case 8 -> {
                    PeerAddress node = NODES.get((step - 2) % 4);
                    Transport<TestMessage> fresh = network.restart(node);
                    fresh.setHandler((f, m) -> { });
                    transports.put(node, fresh);
                }
                default -> { }
            }
            scheduler.advance(Duration.ofMillis(random.nextInt(20)));
        }
        scheduler.advance(Duration.ofSeconds(1));
        return trace;
    }

    @Test
    void theSameSeedGivesTheSameTrace() {
        List<NetworkEvent<TestMessage>> first = scenario(20260101L);
        List<NetworkEvent<TestMessage>> second = scenario(20260101L);

        assertThat(first).hasSizeGreaterThan(100);
        assertThat(second).isEqualTo(first);
        assertThat(scenario(7L)).isNotEqualTo(first);
    }

    @Property(tries = 30)
    void everySeedReplays(@ForAll long seed) {
        assertThat(scenario(seed)).isEqualTo(scenario(seed));
    }

    @Property(tries = 100)
    void aFifoLinkWithoutLossDeliversEverythingOnceInOrder(
            @ForAll long seed, @ForAll @IntRange(min = 0, max = 50) int maxDelayMillis, @ForAll @IntRange(min = 1, max = 60) int count) {
        FakeClock clock = new FakeClock();
        DeterministicScheduler scheduler = new DeterministicScheduler(clock);
        SimulatedNetwork<TestMessage> network = SimulatedNetwork.<TestMessage>builder(scheduler, clock, new Random(seed))
                .defaultLink(LinkConditions.delayed(Duration.ZERO, Duration.ofMillis(maxDelayMillis)).withFifo(true))
                .build();
        Transport<TestMessage> a = network.transport(NODES.get(0));
        Transport<TestMessage> b = network.transport(NODES.get(1));
        List<TestMessage> received = new ArrayList<>();
        b.setHandler((from, message) -> received.add(message));
        List<TestMessage> sent = new ArrayList<>();
        Random pace = new Random(seed);

        for (int i = 0; i < count; i++) {
            sent.add(TestMessage.ping(i));
            a.send(b.local(), TestMessage.ping(i));
            scheduler.advance(Duration.ofMillis(pace.nextInt(5)));
        }
        scheduler.advance(Duration.ofMillis(maxDelayMillis + 1));

        assertThat(received).isEqualTo(sent);
    }

    @Property(tries = 100)
    void withoutFaultsEveryMessageArrivesExactlyOnce(
            @ForAll long seed, @ForAll @IntRange(min = 1, max = 100) int count) {
        FakeClock clock = new FakeClock();
        DeterministicScheduler scheduler = new DeterministicScheduler(clock);
        SimulatedNetwork<TestMessage> network = SimulatedNetwork.<TestMessage>builder(scheduler, clock, new Random(seed)).build();
        Transport<TestMessage> a = network.transport(NODES.get(0));
        Transport<TestMessage> b = network.transport(NODES.get(1));
        List<TestMessage> received = new ArrayList<>();
        b.setHandler((from, message) -> received.add(message));

        List<TestMessage> sent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            sent.add(TestMessage.ping(i));
            a.send(b.local(), TestMessage.ping(i));
        }
        scheduler.advance(Duration.ofMillis(10));

        assertThat(received).containsExactlyInAnyOrderElementsOf(sent);
    }

    @Property(tries = 50)
    void sentEqualsDeliveredPlusDroppedMinusDuplicates(
            @ForAll long seed, @ForAll @DoubleRange(min = 0, max = 1) double loss,
            @ForAll @DoubleRange(min = 0, max = 1) double duplication) {
        FakeClock clock = new FakeClock();
        DeterministicScheduler scheduler = new DeterministicScheduler(clock);
        SimulatedNetwork<TestMessage> network = SimulatedNetwork.<TestMessage>builder(scheduler, clock, new Random(seed))
                .defaultLink(LinkConditions.defaults().withLoss(loss).withDuplication(duplication)).build();
        List<NetworkEvent<TestMessage>> events = new ArrayList<>();
        network.addListener(events::add);
        Transport<TestMessage> a = network.transport(NODES.get(0));
        network.transport(NODES.get(1)).setHandler((f, m) -> { });

        for (int i = 0; i < 200; i++) {
            a.send(NODES.get(1), TestMessage.ping(i));
        }
        scheduler.advance(Duration.ofSeconds(1));

        long sent = events.stream().filter(e -> e instanceof NetworkEvent.Sent<TestMessage>).count();
        long firstCopies = events.stream()
                .filter(e -> e instanceof NetworkEvent.Delivered<TestMessage> d && !d.duplicate()).count();
        long dropped = events.stream().filter(e -> e instanceof NetworkEvent.Dropped<TestMessage>).count();
        assertThat(sent).isEqualTo(200);
        assertThat(firstCopies + dropped).isEqualTo(200);
    }
}

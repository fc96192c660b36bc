package dev.baton.peer.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.peer.testing.TestMessage;
import dev.baton.peer.testing.TestMessage.Ping;
import dev.baton.peer.testing.TestMessage.Pong;
import dev.baton.peer.transport.DropReason;
import dev.baton.peer.transport.MalformedMessageException;
import dev.baton.peer.transport.MessageCodec;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class SimulatedNetworkTest {

    static final PeerAddress A = PeerAddress.of("n1", 7400);
    static final PeerAddress B = PeerAddress.of("n2", 7400);
    static final PeerAddress C = PeerAddress.of("n3", 7400);

    private final FakeClock clock = new FakeClock();
    private final DeterministicScheduler scheduler = new DeterministicScheduler(clock);

    private SimulatedNetwork<TestMessage> network(LinkConditions link) {
        return SimulatedNetwork.<TestMessage>builder(scheduler, clock, new Random(42)).defaultLink(link).build();
    }

    /** What a node received, with the virtual time it arrived at. */
    record Arrival(long atMillis, PeerAddress from, TestMessage message) {
    }

    private List<Arrival> inbox(Transport<TestMessage> transport) {
        List<Arrival> arrivals = new ArrayList<>();
        transport.setHandler((from, message) -> arrivals.add(new Arrival(clock.elapsed().toMillis(), from, message)));
        return arrivals;
    }

    @Test
    void messagesArriveWithinTheLinksDelayRange() {
        SimulatedNetwork<TestMessage> network = network(LinkConditions.delayed(Duration.ofMillis(20), Duration.ofMillis(50)));
        Transport<TestMessage> a = network.transport(A);
        List<Arrival> atB = inbox(network.transport(B));

        for (int i = 0; i < 100; i++) {
            a.send(B, TestMessage.ping(i));
        }
        scheduler.advance(Duration.ofMillis(19));
        assertThat(atB).isEmpty();
        scheduler.advance(Duration.ofMillis(31));

        assertThat(atB).hasSize(100).allSatisfy(arrival -> {
            assertThat(arrival.atMillis()).isBetween(20L, 50L);
            assertThat(arrival.from()).isEqualTo(A);
        });
        assertThat(a.stats().messagesSent()).isEqualTo(100);
    }

    @Test
    void randomDelaysReorderUnlessTheLinkIsFifo() {
        SimulatedNetwork<TestMessage> network = network(LinkConditions.delayed(Duration.ofMillis(1), Duration.ofMillis(100)));
        Transport<TestMessage> a = network.transport(A);
        List<Arrival> atB = inbox(network.transport(B));
        List<Arrival> atC = inbox(network.transport(C));
        network.setLink(A, C, LinkConditions.delayed(Duration.ofMillis(1), Duration.ofMillis(100)).withFifo(true));

        List<TestMessage> sent = IntStream.range(0, 50).<TestMessage>mapToObj(TestMessage::ping).toList();
        for (TestMessage m : sent) {
            a.send(B, m);
            a.send(C, m);
            scheduler.advance(Duration.ofMillis(1));
        }
        scheduler.advance(Duration.ofSeconds(1));

        assertThat(atB).extracting(Arrival::message).containsExactlyInAnyOrderElementsOf(sent).isNotEqualTo(sent);
        assertThat(atC).extracting(Arrival::message).containsExactlyElementsOf(sent);
    }

    @Test
    void lossDropsAboutTheConfiguredShare() {
        SimulatedNetwork<TestMessage> network = network(LinkConditions.instant().withLoss(0.3));
        Transport<TestMessage> a = network.transport(A);
        List<Arrival> atB = inbox(network.transport(B));

        for (int i = 0; i < 2000; i++) {
            a.send(B, TestMessage.ping(i));
        }
        scheduler.runUntilIdle();

        assertThat(a.stats().dropped(DropReason.LOST)).isBetween(500L, 700L);
        assertThat(atB).hasSize(2000 - (int) a.stats().dropped(DropReason.LOST));
    }

    @Test
    void duplicationDeliversASecondCopy() {
        SimulatedNetwork<TestMessage> network = network(LinkConditions.instant().withDuplication(1.0));
        TrafficRecorder<TestMessage> traffic = new TrafficRecorder<>();
        List<NetworkEvent<TestMessage>> events = new ArrayList<>();
        network.addListener(traffic);
        network.addListener(events::add);
        Transport<TestMessage> a = network.transport(A);
        List<Arrival> atB = inbox(network.transport(B));

        a.send(B, new Pong(1));
        scheduler.runUntilIdle();

        assertThat(atB).extracting(Arrival::message).containsExactly(new Pong(1), new Pong(1));
        assertThat(events).filteredOn(e -> e instanceof NetworkEvent.Delivered<TestMessage>)
                .extracting(e -> ((NetworkEvent.Delivered<TestMessage>) e).duplicate()).containsExactly(false, true);
        assertThat(traffic.sentBy(A)).isEqualTo(1);
        assertThat(traffic.deliveredTo(B)).isEqualTo(2);
    }

    @Test
    void aPartitionCutsBetweenSidesAndHealRestores() {
        SimulatedNetwork<TestMessage> network = network(LinkConditions.instant());
        Transport<TestMessage> a = network.transport(A);
        Transport<TestMessage> b = network.transport(B);
        Transport<TestMessage> c = network.transport(C);
        List<Arrival> atA = inbox(a);
        List<Arrival> atB = inbox(b);
        List<Arrival> atC = inbox(c);

        network.partition(Set.of(A, B), Set.of(C));
        a.send(B, new Pong(1));
        a.send(C, new Pong(2));
        c.send(A, new Pong(3));
        scheduler.runUntilIdle();

        assertThat(atB).extracting(Arrival::message).containsExactly(new Pong(1));
        assertThat(atC).isEmpty();
        assertThat(atA).isEmpty();
        assertThat(a.stats().dropped(DropReason.PARTITIONED)).isEqualTo(1);
        assertThat(c.stats().dropped(DropReason.PARTITIONED)).isEqualTo(1);
        assertThat(network.isCut(A, C)).isTrue();

        network.heal();
        a.send(C, new Pong(4));
        scheduler.runUntilIdle();
        assertThat(atC).extracting(Arrival::message).containsExactly(new Pong(4));
    }

    @Test
    void aNodeInNoSideOfThePartitionKeepsAllItsLinks() {
        SimulatedNetwork<TestMessage> network = network(LinkConditions.instant());
        Transport<TestMessage> a = network.transport(A);
        Transport<TestMessage> c = network.transport(C);
        List<Arrival> atB = inbox(network.transport(B));

        network.partition(Set.of(A), Set.of(C));
        a.send(B, new Pong(1));
        c.send(B, new Pong(2));
        scheduler.runUntilIdle();

        assertThat(atB).extracting(Arrival::message).containsExactly(new Pong(1), new Pong(2));
        assertThatThrownBy(() -> network.partition(Set.of(A, B), Set.of(B))).hasMessageContaining("in two sides");
    }

    @Test
    void aPartitionAlsoDropsMessagesAlreadyInFlight() {
        SimulatedNetwork<TestMessage> network = network(LinkConditions.delayed(Duration.ofMillis(10), Duration.ofMillis(10)));
        Transport<TestMessage> a = network.transport(A);
        List<Arrival> atB = inbox(network.transport(B));

        a.send(B, new Pong(1));
        scheduler.advance(Duration.ofMillis(5));
        network.partition(Set.of(A), Set.of(B));
        scheduler.advance(Duration.ofMillis(10));

        assertThat(atB).isEmpty();
        assertThat(a.stats().dropped(DropReason.PARTITIONED)).isEqualTo(1);
    }

    @Test
    void aOneWayCutLeavesTheOtherDirectionWorking() {
        SimulatedNetwork<TestMessage> network = network(LinkConditions.instant());
        Transport<TestMessage> a = network.transport(A);
        Transport<TestMessage> b = network.transport(B);
        List<Arrival> atA = inbox(a);
        List<Arrival> atB = inbox(b);

        network.cut(A, B);
        a.send(B, new Pong(1));
        b.send(A, new Pong(2));
        scheduler.runUntilIdle();
        assertThat(atB).isEmpty();
        assertThat(atA).extracting(Arrival::message).containsExactly(new Pong(2));

        network.restore(A, B);
        a.send(B, new Pong(3));
        scheduler.runUntilIdle();
        assertThat(atB).extracting(Arrival::message).containsExactly(new Pong(3));
    }

    @Test
    void aCrashedNodeNeitherSendsNorReceivesAndLosesWhatWasInFlight() {
        SimulatedNetwork<TestMessage> network = network(LinkConditions.delayed(Duration.ofMillis(10), Duration.ofMillis(10)));
        Transport<TestMessage> a = network.transport(A);
        Transport<TestMessage> b = network.transport(B);
        List<Arrival> atA = inbox(a);
        List<Arrival> atB = inbox(b);

        a.send(B, new Pong(1));
        scheduler.advance(Duration.ofMillis(5));
        network.crash(B);
        b.send(A, new Pong(2));
        a.send(B, new Pong(3));
        scheduler.advance(Duration.ofMillis(20));

        assertThat(atB).isEmpty();
        assertThat(atA).isEmpty();
        assertThat(network.isCrashed(B)).isTrue();
        assertThat(a.stats().dropped(DropReason.CRASHED)).isEqualTo(2);
        assertThat(b.stats().dropped(DropReason.CRASHED)).isEqualTo(1);
    }

    @Test
    void aRestartedNodeGetsAFreshTransportAndNothingMeantForItsPreviousLife() {
        SimulatedNetwork<TestMessage> network = network(LinkConditions.delayed(Duration.ofMillis(10), Duration.ofMillis(10)));
        Transport<TestMessage> a = network.transport(A);
        Transport<TestMessage> b = network.transport(B);
        List<Arrival> oldB = inbox(b);

        a.send(B, new Pong(1));
        scheduler.advance(Duration.ofMillis(5));
        Transport<TestMessage> b2 = network.restart(B);
        List<Arrival> newB = inbox(b2);
        a.send(B, new Pong(2));
        b.send(A, new Pong(99));
        scheduler.advance(Duration.ofMillis(20));

        assertThat(oldB).isEmpty();
        assertThat(newB).extracting(Arrival::message).containsExactly(new Pong(2));
        assertThat(b2.stats().messagesReceived()).isEqualTo(1);
        assertThat(b2).isNotSameAs(b);
        assertThat(network.isCrashed(B)).isFalse();
        assertThatThrownBy(() -> network.transport(B)).hasMessageContaining("already has a live transport");
    }

    @Test
    void messagesToNobodyOrToAClosedTransportAreDropped() {
        SimulatedNetwork<TestMessage> network = network(LinkConditions.instant());
        Transport<TestMessage> a = network.transport(A);
        Transport<TestMessage> b = network.transport(B);

        a.send(C, new Pong(1));
        b.close();
        a.send(B, new Pong(2));
        b.send(A, new Pong(3));

        assertThat(a.stats().dropped(DropReason.UNREACHABLE)).isEqualTo(1);
        assertThat(a.stats().dropped(DropReason.CLOSED)).isEqualTo(1);
        assertThat(b.stats().dropped(DropReason.CLOSED)).isEqualTo(1);
        // A closed address can be given a new transport.
        assertThat(network.transport(B)).isNotSameAs(b);
    }

    @Test
    void aMessageToItselfIsDeliveredWithoutTheLink() {
        SimulatedNetwork<TestMessage> network = network(LinkConditions.instant().withLoss(1.0));
        Transport<TestMessage> a = network.transport(A);
        List<Arrival> atA = inbox(a);

        a.send(A, new Pong(1));
        scheduler.runUntilIdle();

        assertThat(atA).extracting(Arrival::message).containsExactly(new Pong(1));
    }

    @Test
    void withoutAHandlerMessagesAreDroppedOnTheReceiver() {
        SimulatedNetwork<TestMessage> network = network(LinkConditions.instant());
        Transport<TestMessage> a = network.transport(A);
        Transport<TestMessage> b = network.transport(B);

        a.send(B, new Pong(1));
        scheduler.runUntilIdle();

        assertThat(b.stats().dropped(DropReason.NO_HANDLER)).isEqualTo(1);
    }

    @Test
    void theCodecOptionDeliversADecodedCopyAndExposesCodecBugs() {
        SimulatedNetwork<TestMessage> network = SimulatedNetwork.<TestMessage>builder(scheduler, clock, new Random(1))
                .defaultLink(LinkConditions.instant()).codec(TestMessage.CODEC).build();
        Transport<TestMessage> a = network.transport(A);
        List<Arrival> atB = inbox(network.transport(B));
        Ping ping = new Ping(1, "hello");

        a.send(B, ping);
        scheduler.runUntilIdle();

        assertThat(atB).singleElement().satisfies(arrival -> {
            assertThat(arrival.message()).isEqualTo(ping);
            assertThat(arrival.message()).isNotSameAs(ping);
        });

        MessageCodec<TestMessage> lossy = new MessageCodec<>() {
            @Override
            public byte[] encode(TestMessage message) {
                return TestMessage.CODEC.encode(message);
            }

            @Override
            public TestMessage decode(byte[] bytes) throws MalformedMessageException {
                throw new MalformedMessageException("unknown field 'n' in Pong");
            }
        };
        SimulatedNetwork<TestMessage> buggy = SimulatedNetwork.<TestMessage>builder(scheduler, clock, new Random(1))
                .codec(lossy).maxFrameSize(64).build();
        Transport<TestMessage> x = buggy.transport(A);
        assertThatThrownBy(() -> x.send(B, new Pong(1))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("codec cannot decode the Pong it encoded: unknown field 'n' in Pong");
        assertThatThrownBy(() -> x.send(B, new Ping(1, "x".repeat(100)))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("more than the frame limit of 64");
    }

    @Test
    void listenersSeeEverySendDeliveryAndDrop() {
        SimulatedNetwork<TestMessage> network = network(LinkConditions.instant());
        List<NetworkEvent<TestMessage>> events = new ArrayList<>();
        network.addListener(events::add);
        Transport<TestMessage> a = network.transport(A);
        inbox(network.transport(B));
        network.cut(A, C);
        network.transport(C);

        a.send(B, new Pong(1));
        a.send(C, new Pong(2));
        scheduler.runUntilIdle();

        assertThat(events).containsExactly(
                new NetworkEvent.Sent<>(0, A, B, new Pong(1)),
                new NetworkEvent.Sent<>(0, A, C, new Pong(2)),
                new NetworkEvent.Dropped<>(0, A, C, new Pong(2), DropReason.PARTITIONED),
                new NetworkEvent.Delivered<>(0, A, B, new Pong(1), false));
    }

    @Test
    void trafficRecorderCountsPerNodePerInterval() {
        SimulatedNetwork<TestMessage> network = network(LinkConditions.instant());
        TrafficRecorder<TestMessage> traffic = new TrafficRecorder<>();
        network.addListener(traffic);
        Transport<TestMessage> a = network.transport(A);
        Transport<TestMessage> b = network.transport(B);
        inbox(a);
        inbox(b);

        a.send(B, new Pong(1));
        a.send(B, new Pong(2));
        b.send(A, TestMessage.ping(1));
        scheduler.runUntilIdle();
        assertThat(traffic.sentPerNode()).containsEntry(A, 2L).containsEntry(B, 1L);
        assertThat(traffic.sentPerType()).containsEntry(Pong.class, 2L).containsEntry(Ping.class, 1L);
        assertThat(traffic.totalSent()).isEqualTo(3);

        traffic.reset();
        b.send(A, TestMessage.ping(2));
        scheduler.runUntilIdle();
        assertThat(traffic.sentBy(A)).isZero();
        assertThat(traffic.sentBy(B)).isEqualTo(1);
        assertThat(traffic.deliveredTo(A)).isEqualTo(1);
    }

    @Test
    void linkConditionsNameTheWrongField() {
        assertThatThrownBy(() -> LinkConditions.delayed(Duration.ofMillis(5), Duration.ofMillis(1)))
                .hasMessageContaining("maxDelay must be at least minDelay");
        assertThatThrownBy(() -> LinkConditions.instant().withLoss(1.5)).hasMessageContaining("lossProbability");
        assertThatThrownBy(() -> LinkConditions.instant().withDuplication(-0.1)).hasMessageContaining("duplicationProbability");
        assertThatThrownBy(() -> LinkConditions.delayed(Duration.ofMillis(-1), Duration.ZERO)).hasMessageContaining("minDelay");
    }
}

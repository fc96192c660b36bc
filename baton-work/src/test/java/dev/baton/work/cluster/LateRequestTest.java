package dev.baton.work.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.work.internal.route.BusCodec;
import dev.baton.work.internal.route.BusMessage;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A request's copies can arrive after its answer (a retry held up in a process's store connection is published when
 * the connection recovers). Such a copy must not undo a later request: the leader answers a request id it answered
 * already without applying it again, and refuses a copy addressed to another leader's term.
 */
class LateRequestTest {

    private final SimCluster sim = new SimCluster().withWorkers(2);
    private final BusCodec codec = new BusCodec();
    private SimCluster.Node leader;
    private SimCluster.Node follower;

    @BeforeEach
    void startTwoProcessesWithOneItem() {
        leader = sim.start("p1");
        sim.run(Duration.ofSeconds(2));
        follower = sim.start("p2");
        sim.run(Duration.ofSeconds(2));
        sim.await(follower.cluster.subscribe(SimCluster.item("d1;cam1")));
        sim.run(Duration.ofSeconds(2));
    }

    @AfterEach
    void close() {
        sim.close();
    }

    private long term() {
        return leader.election.leadership().orElseThrow().term();
    }

    private void publish(BusMessage message) {
        sim.store.bus().publish("worker:master:commands", codec.encode(message));
        sim.run(Duration.ofSeconds(1));
    }

    private boolean stored(String item) {
        return sim.store.maps().mapEntries(SimCluster.GROUP, "work_items").join().containsKey(item);
    }

    @Test
    void aLateCopyOfAnAnsweredRequestDoesNotUndoALaterOne() {
        BusMessage.UnsubscribeCamera unsubscribe = new BusMessage.UnsubscribeCamera(SimCluster.GROUP, "p2/x/1",
                "p2", "cam1", term());
        publish(unsubscribe);
        assertThat(stored("d1;cam1")).isFalse();
        sim.await(follower.cluster.subscribe(SimCluster.item("d1;cam1"))); // a later request

        publish(unsubscribe); // the first request's retry, published late
        sim.run(Duration.ofSeconds(3));
        assertThat(stored("d1;cam1")).isTrue();
        assertThat(sim.placements()).containsKey("d1;cam1");
    }

    @Test
    void aCopyAddressedToAnotherTermIsRefused() {
        long first = term();
        sim.await(leader.election.stepDown());
        sim.run(Duration.ofSeconds(3));
        leader = sim.leader();
        assertThat(term()).isGreaterThan(first);

        publish(new BusMessage.UnsubscribeItem(SimCluster.GROUP, "p2/x/2", "p2", "d1;cam1", first));
        publish(new BusMessage.UnsubscribeItem(SimCluster.GROUP, "p2/x/3", "p2", "d1;cam1", term() + 1));
        assertThat(stored("d1;cam1")).isTrue();

        publish(new BusMessage.UnsubscribeItem(SimCluster.GROUP, "p2/x/4", "p2", "d1;cam1")); // no term: any leader
        assertThat(stored("d1;cam1")).isFalse();
    }
}

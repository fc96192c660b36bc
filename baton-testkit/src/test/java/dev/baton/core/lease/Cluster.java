package dev.baton.core.lease;

import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.NodeInfo;
import dev.baton.core.memory.InMemoryStore;
import dev.baton.core.spi.FailureLog;
import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import dev.baton.testkit.FaultInjectingStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Nodes running lease elections on one in-memory store, under one fake clock and deterministic scheduler. Each node
 * talks to the store through its own {@link FaultInjectingStore}, so a test can cut one node off.
 */
final class Cluster {

    final FakeClock clock = new FakeClock();
    final DeterministicScheduler scheduler = new DeterministicScheduler(clock);
    final InMemoryStore store = new InMemoryStore(clock);
    final String group = "orders";
    final ElectionConfig config;
    final Map<String, Node> nodes = new LinkedHashMap<>();
    private final Random random;

    Cluster(ElectionConfig config, long seed) {
        this.config = config;
        this.random = new Random(seed);
    }

    Cluster() {
        this(ElectionConfig.fast(), 42);
    }

    final class Node {
        final String id;
        final FaultInjectingStore link;
        final LeaseElection election;
        final List<ElectionEvent> events = new CopyOnWriteArrayList<>();
        final List<Long> eventNanos = new CopyOnWriteArrayList<>();
        /** The lines this node's store-failure log wrote, WARN and INFO alike. */
        final List<String> failureLines = new CopyOnWriteArrayList<>();

        Node(String id) {
            this.id = id;
            this.link = new FaultInjectingStore(store);
            this.election = new LeaseElection(link, group, NodeInfo.of(id, "test-" + id), config, clock, scheduler,
                    new Random(random.nextLong()), Runnable::run, ElectionMetrics.NONE, null, new FailureLog.Lines() {
                        @Override
                        public void warn(String line) {
                            failureLines.add(line);
                        }

                        @Override
                        public void info(String line) {
                            failureLines.add(line);
                        }
                    });
            election.addListener(event -> {
                events.add(event);
                eventNanos.add(clock.nanoTime());
            });
        }

        <T extends ElectionEvent> List<T> events(Class<T> type) {
            List<T> matching = new ArrayList<>();
            for (ElectionEvent event : events) {
                if (type.isInstance(event)) {
                    matching.add(type.cast(event));
                }
            }
            return matching;
        }

        /** Time, on the fake clock, of the first event of {@code type} after {@code fromIndex}; -1 if none. */
        long nanosOf(Class<? extends ElectionEvent> type, int occurrence) {
            int seen = 0;
            for (int i = 0; i < events.size(); i++) {
                if (type.isInstance(events.get(i)) && seen++ == occurrence) {
                    return eventNanos.get(i);
                }
            }
            return -1;
        }

        boolean leads() {
            return election.isLeader();
        }
    }

    Node add(String id) {
        Node node = new Node(id);
        nodes.put(id, node);
        return node;
    }

    Node start(String id) {
        Node node = add(id);
        node.election.start();
        scheduler.runUntilIdle();
        return node;
    }

    Node node(String id) {
        return nodes.get(id);
    }

    void advance(Duration duration) {
        scheduler.advance(duration);
    }

    List<Node> leaders() {
        return nodes.values().stream().filter(Node::leads).toList();
    }
}

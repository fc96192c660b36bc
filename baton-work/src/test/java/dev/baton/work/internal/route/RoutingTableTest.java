package dev.baton.work.internal.route;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Where one result goes, and how workers are spread over the processes with global listeners. */
class RoutingTableTest {

    private final RoutingTable table = new RoutingTable();

    @Test
    void aResultGoesToItsItemsListenersAndToTheOwnerOfItsWorkerIfItHasGlobalListeners() {
        table.offer(new ListenerCard("p1", 1, 1, Set.of(), true));
        table.offer(new ListenerCard("p2", 1, 1, Set.of("a;1"), false));
        table.offer(new ListenerCard("p3", 1, 1, Set.of("a;1"), true));
        table.setAssignment(Map.of("ws://w1", "p1", "ws://w2", "p3", "ws://w3", "p2"));

        assertThat(table.targets("ws://w1", "a;1")).containsExactlyInAnyOrder(new RoutingTable.Target("p1", true),
                new RoutingTable.Target("p2", false), new RoutingTable.Target("p3", false));
        assertThat(table.targets("ws://w2", "a;1")).containsExactlyInAnyOrder(new RoutingTable.Target("p3", true),
                new RoutingTable.Target("p2", false));
        assertThat(table.targets("ws://w1", "b;2")).containsExactly(new RoutingTable.Target("p1", true));
        assertThat(table.targets("ws://w3", "b;2")).as("p2 has no global listener").isEmpty();
    }

    @Test
    void anOlderCardNeverReplacesANewerOneButANewIncarnationDoes() {
        table.offer(new ListenerCard("p1", 7, 5, Set.of("a;1"), false));
        assertThat(table.offer(new ListenerCard("p1", 7, 4, Set.of(), true))).isFalse();
        assertThat(table.card("p1").version()).isEqualTo(5);
        assertThat(table.offer(new ListenerCard("p1", 8, 1, Set.of(), true))).isTrue();
        assertThat(table.targets("ws://w", "a;1")).isEmpty();
    }

    @Test
    void workersAreSpreadOverTheProcessesWithGlobalListenersAndMoveMinimally() {
        table.offer(new ListenerCard("p1", 1, 1, Set.of(), true));
        table.offer(new ListenerCard("p2", 1, 1, Set.of(), true));
        table.offer(new ListenerCard("p3", 1, 1, Set.of("x;1"), false));
        List<String> workers = List.of("ws://a", "ws://b", "ws://c", "ws://d");
        Map<String, String> first = ProcessAssigner.assign(workers, table.owners(List.of("p1", "p2", "p3")), Map.of());
        assertThat(first.values()).containsOnly("p1", "p2");
        assertThat(first.values().stream().filter("p1"::equals)).hasSize(2);

        table.offer(new ListenerCard("p4", 1, 1, Set.of(), true));
        Map<String, String> joined = ProcessAssigner.assign(workers, table.owners(List.of("p1", "p2", "p3", "p4")),
                first);
        long moved = workers.stream().filter(w -> !joined.get(w).equals(first.get(w))).count();
        assertThat(moved).isEqualTo(1); // floor(4 / 3)
        assertThat(ProcessAssigner.assign(workers, table.owners(List.of("p3")), first).values()).containsOnly("p3");
    }
}

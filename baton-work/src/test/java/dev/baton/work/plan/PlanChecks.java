package dev.baton.work.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Checks a plan against its scenario from plain values, independently of the planner's arrays. */
final class PlanChecks {

    private PlanChecks() {
    }

    static boolean eligible(Worker w) {
        return w.online() && w.capacity() > 0;
    }

    /**
     * Every desired item on exactly one eligible worker within capacity, or reported with the right reason; the moves
     * turn the current placements into the new assignment; undesired items end on no worker.
     */
    static void assertComplete(Scenario scenario, Plan plan, BalanceMode mode) {
        Map<String, Worker> workers = new HashMap<>();
        scenario.workers().forEach(w -> workers.put(w.id(), w));
        Map<String, Long> weights = new HashMap<>();
        scenario.items().forEach(i -> weights.put(i.id(), mode == BalanceMode.COUNT ? 1 : i.weight()));
        Map<String, String> assignment = plan.assignment();
        Map<String, UnassignedReason> unassigned = new HashMap<>();
        for (Unassigned u : plan.unassigned()) {
            assertThat(unassigned.put(u.item(), u.reason())).as("reported twice: %s", u.item()).isNull();
        }
        assertThat(assignment.keySet()).allMatch(weights::containsKey);
        for (PlanItem item : scenario.items()) {
            String on = assignment.get(item.id());
            assertThat(on == null).as("item %s is either assigned (%s) or unassigned (%s)", item.id(), on,
                    unassigned.get(item.id())).isEqualTo(unassigned.containsKey(item.id()));
            if (on != null) {
                assertThat(workers.get(on)).as("worker of %s", item.id()).isNotNull()
                        .matches(PlanChecks::eligible, "online with capacity");
            }
        }
        Map<String, Long> loads = loads(scenario, plan, mode);
        for (Worker w : scenario.workers()) {
            assertThat(plan.load(w.id())).as("load of %s", w.id()).isEqualTo(loads.getOrDefault(w.id(), 0L));
            assertThat(loads.getOrDefault(w.id(), 0L)).as("capacity of %s", w.id()).isLessThanOrEqualTo(w.capacity());
        }
        long maxCapacity = scenario.workers().stream().filter(PlanChecks::eligible).mapToLong(Worker::capacity)
                .max().orElse(0);
        for (Map.Entry<String, UnassignedReason> u : unassigned.entrySet()) {
            long weight = weights.get(u.getKey());
            boolean anyEligible = scenario.workers().stream().anyMatch(PlanChecks::eligible);
            UnassignedReason expected = !anyEligible ? UnassignedReason.NO_WORKERS_AVAILABLE
                    : weight > maxCapacity ? UnassignedReason.ITEM_TOO_LARGE : UnassignedReason.NO_CAPACITY;
            assertThat(u.getValue()).as("reason for %s", u.getKey()).isEqualTo(expected);
            if (expected == UnassignedReason.NO_CAPACITY) {
                for (Worker w : scenario.workers()) {
                    if (eligible(w)) {
                        assertThat(w.capacity() - loads.getOrDefault(w.id(), 0L))
                                .as("room on %s for unassigned %s", w.id(), u.getKey()).isLessThan(weight);
                    }
                }
            }
        }
        assertMovesReachAssignment(scenario, plan);
    }

    /** Applying the moves to the current placements gives exactly the plan's assignment. */
    static void assertMovesReachAssignment(Scenario scenario, Plan plan) {
        Map<String, Set<String>> placed = new TreeMap<>();
        for (Scenario.Placement p : scenario.placements()) {
            placed.computeIfAbsent(p.item(), k -> new HashSet<>()).add(p.worker());
        }
        for (Move move : plan.moves()) {
            Set<String> on = placed.computeIfAbsent(move.item(), k -> new HashSet<>());
            if (move.from() != null) {
                assertThat(on).as("%s is on its from worker", move).contains(move.from());
                on.remove(move.from());
            }
            if (move.to() != null) {
                assertThat(on).as("%s is not yet on its to worker", move).doesNotContain(move.to());
                on.add(move.to());
            }
        }
        Map<String, String> reached = new TreeMap<>();
        placed.forEach((item, on) -> {
            assertThat(on.size()).as("placements of %s after the moves", item).isLessThanOrEqualTo(1);
            on.forEach(w -> reached.put(item, w));
        });
        assertThat(reached).isEqualTo(new TreeMap<>(plan.assignment()));
    }

    static Map<String, Long> loads(Scenario scenario, Plan plan, BalanceMode mode) {
        Map<String, Long> weights = new HashMap<>();
        scenario.items().forEach(i -> weights.put(i.id(), mode == BalanceMode.COUNT ? 1 : i.weight()));
        Map<String, Long> loads = new HashMap<>();
        plan.assignment().forEach((item, worker) -> loads.merge(worker, weights.get(item), Long::sum));
        return loads;
    }

    /** Count balance: a worker holds at most one item more than another unless the other is full. */
    static void assertCountBalanced(Scenario scenario, Plan plan) {
        Map<String, Long> loads = loads(scenario, plan, BalanceMode.COUNT);
        List<Worker> eligible = scenario.workers().stream().filter(PlanChecks::eligible).toList();
        for (Worker a : eligible) {
            for (Worker b : eligible) {
                long la = loads.getOrDefault(a.id(), 0L);
                long lb = loads.getOrDefault(b.id(), 0L);
                if (la > lb + 1) {
                    assertThat(lb).as("%s holds %d, %s holds %d: only allowed if %s is full", a.id(), la, b.id(), lb,
                            b.id()).isEqualTo(b.capacity());
                }
            }
        }
    }

    /**
     * Weighted balance: for workers A and B where B has room for A's heaviest item, load(A) <= load(B) + heaviest(A);
     * with no capacity limits, max load <= average load + largest item weight.
     */
    static void assertWeightBalanced(Scenario scenario, Plan plan) {
        Map<String, Long> loads = loads(scenario, plan, BalanceMode.WEIGHTED);
        Map<String, Long> weights = new HashMap<>();
        scenario.items().forEach(i -> weights.put(i.id(), i.weight()));
        Map<String, Long> heaviest = new HashMap<>();
        plan.assignment().forEach((item, worker) -> heaviest.merge(worker, weights.get(item), Math::max));
        List<Worker> eligible = scenario.workers().stream().filter(PlanChecks::eligible).toList();
        for (Worker a : eligible) {
            long h = heaviest.getOrDefault(a.id(), 0L);
            if (h == 0) {
                continue;
            }
            for (Worker b : eligible) {
                if (a == b) {
                    continue;
                }
                long la = loads.getOrDefault(a.id(), 0L);
                long lb = loads.getOrDefault(b.id(), 0L);
                if (b.capacity() - lb >= h) {
                    assertThat(la).as("load of %s (heaviest %d) against %s", a.id(), h, b.id())
                            .isLessThanOrEqualTo(lb + h);
                }
            }
        }
        if (scenario.allCapacitiesUnlimited() && !eligible.isEmpty()) {
            long total = loads.values().stream().mapToLong(Long::longValue).sum();
            long max = loads.values().stream().mapToLong(Long::longValue).max().orElse(0);
            long largest = scenario.items().stream().mapToLong(PlanItem::weight).max().orElse(0);
            // max <= total / n + largest, compared without rounding.
            assertThat(max * eligible.size()).isLessThanOrEqualTo(total + largest * eligible.size());
        }
    }
}

package dev.baton.work.plan;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * jqwik generators of planner inputs: realistic ones (a few dozen items on a handful of workers, most online) and
 * the edges: no workers, all offline, zero or tight capacities, heavily skewed weights, placements on unknown or
 * offline workers, undesired items, items on two workers.
 */
final class Scenarios {

    private Scenarios() {
    }

    /** Any scenario: every edge case generator below mixed in. */
    static Arbitrary<Scenario> any(boolean weighted) {
        return Arbitraries.frequencyOf(
                Tuple.of(6, scenarios(weighted, capacities(weighted), Arbitraries.of(true, true, true, true, false))),
                Tuple.of(2, scenarios(weighted, Arbitraries.just(Worker.UNLIMITED), Arbitraries.just(true))),
                Tuple.of(2, scenarios(weighted, tightCapacities(weighted), Arbitraries.of(true, true, false))),
                Tuple.of(1, scenarios(weighted, capacities(weighted), Arbitraries.just(false))));
    }

    /** Scenarios where every worker is online with unlimited capacity and the current assignment is empty. */
    static Arbitrary<Scenario> unconstrained(boolean weighted) {
        return Combinators.combine(itemLists(weighted), workerLists(Arbitraries.just(Worker.UNLIMITED),
                        Arbitraries.just(true), 1, 10))
                .as((items, workers) -> new Scenario(items, workers, List.of()));
    }

    private static Arbitrary<Scenario> scenarios(boolean weighted, Arbitrary<Long> capacity,
            Arbitrary<Boolean> online) {
        Arbitrary<List<PlanItem>> items = itemLists(weighted);
        Arbitrary<List<Worker>> workers = workerLists(capacity, online, 0, 10);
        return Combinators.combine(items, workers).flatAs((itemList, workerList) ->
                placements(itemList, workerList).map(p -> new Scenario(itemList, workerList, p)));
    }

    private static Arbitrary<List<PlanItem>> itemLists(boolean weighted) {
        Arbitrary<Long> weight = weighted
                ? Arbitraries.frequencyOf(
                        Tuple.of(5, Arbitraries.longs().between(1, 5)),
                        Tuple.of(2, Arbitraries.longs().between(1, 100)),
                        Tuple.of(1, Arbitraries.longs().between(50, 400)))
                : Arbitraries.just(1L);
        Arbitrary<PlanItem> item = Combinators.combine(Arbitraries.integers().between(0, 199), weight)
                .as((n, w) -> PlanItem.of("item-" + n, w));
        return item.list().ofMaxSize(80).uniqueElements(PlanItem::id);
    }

    private static Arbitrary<List<Worker>> workerLists(Arbitrary<Long> capacity, Arbitrary<Boolean> online,
            int min, int max) {
        Arbitrary<Double> usage = Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.of(0.0, 0.5, 1.0)),
                Tuple.of(3, Arbitraries.doubles().between(0, 1)));
        Arbitrary<Worker> worker = Combinators.combine(Arbitraries.integers().between(0, 14), capacity, usage, usage,
                online).as((n, c, cpu, mem, on) -> new Worker("ws://worker-" + n, c, cpu, mem, on));
        return worker.list().ofMinSize(min).ofMaxSize(max).uniqueElements(Worker::id);
    }

    private static Arbitrary<Long> capacities(boolean weighted) {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.just(Worker.UNLIMITED)),
                Tuple.of(2, Arbitraries.longs().between(0, weighted ? 600 : 30)));
    }

    private static Arbitrary<Long> tightCapacities(boolean weighted) {
        return Arbitraries.longs().between(0, weighted ? 80 : 6);
    }

    /** Current placements: most items on a listed worker, some on none, unknown workers, two workers; strays. */
    private static Arbitrary<List<Scenario.Placement>> placements(List<PlanItem> items, List<Worker> workers) {
        List<String> workerIds = new ArrayList<>();
        workers.forEach(w -> workerIds.add(w.id()));
        workerIds.add("ws://gone-1");
        workerIds.add("ws://gone-2");
        Arbitrary<String> anyWorker = Arbitraries.of(workerIds);
        Arbitrary<Integer> kind = Arbitraries.integers().between(0, 99);
        int size = items.size();
        return Combinators.combine(kind.list().ofSize(size), anyWorker.list().ofSize(size),
                        anyWorker.list().ofSize(size), Arbitraries.integers().between(0, 199).set().ofMaxSize(6),
                        anyWorker.list().ofSize(6), Arbitraries.integers().between(0, 2))
                .as((kinds, first, second, strays, strayWorkers, style) -> {
                    List<Scenario.Placement> placements = new ArrayList<>();
                    Set<String> desired = new LinkedHashSet<>();
                    items.forEach(i -> desired.add(i.id()));
                    for (int k = 0; k < size; k++) {
                        String item = items.get(k).id();
                        int roll = kinds.get(k);
                        // style 0: no current assignment at all (a first plan).
                        if (style == 0 || roll < 30) {
                            continue;
                        }
                        placements.add(new Scenario.Placement(item, first.get(k)));
                        if (roll >= 95) {
                            placements.add(new Scenario.Placement(item, second.get(k)));
                        }
                    }
                    int s = 0;
                    for (int stray : strays) {
                        String item = "item-" + stray;
                        if (!desired.contains(item)) {
                            placements.add(new Scenario.Placement(item, strayWorkers.get(s)));
                        }
                        s++;
                    }
                    return placements;
                });
    }
}

package dev.baton.work.plan;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * A generated planner input in plain values: desired items, workers, and current placements (item id, worker id),
 * which may name unknown workers, undesired items, or one item on several workers.
 */
record Scenario(List<PlanItem> items, List<Worker> workers, List<Placement> placements) {

    record Placement(String item, String worker) {
    }

    /** The input, with items, workers and placements given in an order shuffled by {@code shuffleSeed}. */
    PlanInput input(long shuffleSeed) {
        Random random = new Random(shuffleSeed);
        List<PlanItem> shuffledItems = new ArrayList<>(items);
        List<Worker> shuffledWorkers = new ArrayList<>(workers);
        List<Placement> shuffledPlacements = new ArrayList<>(placements);
        Collections.shuffle(shuffledItems, random);
        Collections.shuffle(shuffledWorkers, random);
        Collections.shuffle(shuffledPlacements, random);
        PlanInput.Builder builder = PlanInput.builder().items(shuffledItems).workers(shuffledWorkers);
        shuffledPlacements.forEach(p -> builder.assigned(p.item(), p.worker()));
        return builder.build();
    }

    PlanInput input() {
        return input(0);
    }

    boolean allCapacitiesUnlimited() {
        return workers.stream().allMatch(w -> w.capacity() == Worker.UNLIMITED);
    }

    @Override
    public String toString() {
        return "Scenario[items=" + items + ", workers=" + workers + ", placements=" + placements + "]";
    }
}

package dev.baton.bench.jmh.planner;

import dev.baton.work.plan.PlanInput;
import dev.baton.work.plan.Worker;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * One benchmark input, the same for Baton's planner and Kafka's assignors: {@code items} work items that are topic
 * partitions ({@value #PARTITIONS_PER_TOPIC} per topic, so 100 topics at 100,000 and 1,000 at 1,000,000), and
 * {@code workers} workers that are consumer group members, all subscribed to every topic. The balanced starting
 * point of the "one worker leaving" cases is round-robin: partition number k (over all topics) on worker k mod W,
 * and the worker that leaves is number W / 2.
 */
public final class PlannerShape {

    /** Partitions per topic. */
    public static final int PARTITIONS_PER_TOPIC = 1_000;

    public final int items;
    public final int workers;
    public final int topics;
    private String[] itemIds;

    private PlannerShape(int items, int workers) {
        if (items % PARTITIONS_PER_TOPIC != 0) {
            throw new IllegalArgumentException("items must be a multiple of " + PARTITIONS_PER_TOPIC);
        }
        this.items = items;
        this.workers = workers;
        this.topics = items / PARTITIONS_PER_TOPIC;
    }

    /** Parses {@code "ITEMS/WORKERS"}, e.g. {@code "100000/1000"}. */
    public static PlannerShape parse(String spec) {
        String[] parts = spec.split("/");
        return new PlannerShape(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
    }

    public String topic(int t) {
        return String.format("topic-%04d", t);
    }

    /** The Baton item id of partition {@code p} of topic {@code t}. */
    public String itemId(int t, int p) {
        return topic(t) + "-" + p;
    }

    public String workerId(int w) {
        return String.format("member-%04d", w);
    }

    /** The index of the worker that leaves. */
    public int leaving() {
        return workers / 2;
    }

    /** The round-robin owner of partition {@code p} of topic {@code t}. */
    public int roundRobinOwner(int t, int p) {
        return (t * PARTITIONS_PER_TOPIC + p) % workers;
    }

    /** Baton's workers: online, unlimited, CPU and memory utilisation drawn from a fixed seed (the DRS tie-break). */
    public List<Worker> batonWorkers() {
        Random random = new Random(42);
        List<Worker> list = new ArrayList<>(workers);
        for (int w = 0; w < workers; w++) {
            list.add(new Worker(workerId(w), Worker.UNLIMITED, random.nextDouble(), random.nextDouble(), true));
        }
        return list;
    }

    /** Every item id, partition k (over all topics) at index k; created once. */
    public String[] itemIds() {
        if (itemIds == null) {
            String[] ids = new String[items];
            for (int t = 0; t < topics; t++) {
                for (int p = 0; p < PARTITIONS_PER_TOPIC; p++) {
                    ids[t * PARTITIONS_PER_TOPIC + p] = itemId(t, p);
                }
            }
            itemIds = ids;
        }
        return itemIds;
    }

    /** Baton's input with every item and worker and no current assignment (a full plan). */
    public PlanInput batonEmptyInput(List<Worker> batonWorkers) {
        PlanInput.Builder builder = PlanInput.builder().workers(batonWorkers);
        for (String id : itemIds()) {
            builder.item(id);
        }
        return builder.build();
    }

    /** Baton's input with the round-robin assignment as the current one. */
    public PlanInput batonRoundRobinInput() {
        List<Worker> batonWorkers = batonWorkers();
        PlanInput.Builder builder = PlanInput.builder().workers(batonWorkers);
        String[] ids = itemIds();
        for (int k = 0; k < items; k++) {
            builder.item(ids[k]).assigned(ids[k], batonWorkers.get(k % workers).id());
        }
        return builder.build();
    }

    @Override
    public String toString() {
        return items + " items on " + workers + " workers";
    }
}

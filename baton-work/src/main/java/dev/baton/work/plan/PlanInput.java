package dev.baton.work.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the planner plans from: the desired items, the workers and the current assignment, immutable.
 *
 * <p>Build one with {@link #builder()}; the order in which items, workers and placements are given does not matter.
 * The current assignment may name workers that are not listed (they count as offline: their items move), items that
 * are not desired (they are unsubscribed) and an item on several workers (one placement is kept, the others are
 * unsubscribed).
 *
 * <p>Between rounds, derive the next input instead of building it again: {@link Plan#nextInput()} (the plan
 * applied), {@link #withWorker(Worker)} and {@link #withoutWorker(String)} share the item table, so a worker joining
 * or leaving costs work in proportion to the workers and the items that move, not to every item. Building an input
 * from scratch sorts the items once (a radix sort of their hash codes) and joins the current assignment to them.
 */
public final class PlanInput {

    // Items in canonical order (see ItemOrder); shared by every input derived from this one.
    final String[] itemIds;
    /** Weights in canonical order, or null when every item weighs 1. */
    final long[] weights;
    /** Per item, the worker index it is on now, or -1. Never written after construction. */
    final int[] current;
    /** Further placements of items that are on more than one worker now, sorted by item index. */
    final int[] extraItem;
    final int[] extraWorker;
    /** Placements of items that are not desired (always unsubscribed), sorted by item id canonically. */
    final String[] staleItem;
    final int[] staleWorker;

    // The worker table. Indexes are stable across derived inputs: a worker that leaves stays as an absent entry
    // (offline, not listed), a new one is appended, so the per-item worker indexes never need rewriting.
    final Worker[] workers;
    final boolean[] listed;
    /** Worker indexes sorted by id. */
    final int[] byId;
    /** Per worker index, its position in id order. */
    final int[] rank;
    private final Map<String, Integer> workerIndex;

    /** Loads of the current assignment per worker index, as a plan of this mode computed them; or null. */
    final long[] currentLoads;
    final BalanceMode currentLoadsMode;
    /** With {@link #currentLoads}: how many desired items are on no worker now. */
    final int currentUnplaced;

    private volatile Map<String, Integer> itemIndex;

    private PlanInput(String[] itemIds, long[] weights, int[] current, int[] extraItem, int[] extraWorker,
            String[] staleItem, int[] staleWorker, Worker[] workers, boolean[] listed, int[] byId, int[] rank,
            Map<String, Integer> workerIndex, long[] currentLoads, BalanceMode currentLoadsMode, int currentUnplaced,
            Map<String, Integer> itemIndex) {
        this.itemIds = itemIds;
        this.weights = weights;
        this.current = current;
        this.extraItem = extraItem;
        this.extraWorker = extraWorker;
        this.staleItem = staleItem;
        this.staleWorker = staleWorker;
        this.workers = workers;
        this.listed = listed;
        this.byId = byId;
        this.rank = rank;
        this.workerIndex = workerIndex;
        this.currentLoads = currentLoads;
        this.currentLoadsMode = currentLoadsMode;
        this.currentUnplaced = currentUnplaced;
        this.itemIndex = itemIndex;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The number of desired items. */
    public int itemCount() {
        return itemIds.length;
    }

    /** The desired items, in the planner's canonical order (by hash code, then id; the same for any input order). */
    public List<PlanItem> items() {
        List<PlanItem> items = new ArrayList<>(itemIds.length);
        for (int i = 0; i < itemIds.length; i++) {
            items.add(new PlanItem(itemIds[i], weight(i)));
        }
        return Collections.unmodifiableList(items);
    }

    /** The listed workers, sorted by id. */
    public List<Worker> workers() {
        List<Worker> list = new ArrayList<>();
        for (int w : byId) {
            if (listed[w]) {
                list.add(workers[w]);
            }
        }
        return Collections.unmodifiableList(list);
    }

    /** The worker with this id, or null if it is not listed. */
    public Worker worker(String id) {
        Integer w = workerIndex.get(id);
        return w != null && listed[w] ? workers[w] : null;
    }

    /**
     * The current assignment as item id to worker id (one placement per item; for an item on several workers, the
     * worker with the smallest id), including items that are not desired. Built on each call.
     */
    public Map<String, String> currentAssignment() {
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i < staleItem.length; i++) {
            map.putIfAbsent(staleItem[i], workers[staleWorker[i]].id());
        }
        for (int i = 0; i < itemIds.length; i++) {
            if (current[i] >= 0) {
                map.put(itemIds[i], workers[current[i]].id());
            }
        }
        return Collections.unmodifiableMap(map);
    }

    /** This input with {@code worker} added, or replacing the listed worker with its id. */
    public PlanInput withWorker(Worker worker) {
        Objects.requireNonNull(worker, "worker");
        Integer existing = workerIndex.get(worker.id());
        if (existing != null) {
            int w = existing;
            Worker[] newWorkers = workers.clone();
            boolean[] newListed = listed.clone();
            newWorkers[w] = worker;
            newListed[w] = true;
            return withWorkerTable(newWorkers, newListed, byId, rank, workerIndex);
        }
        int w = workers.length;
        Worker[] newWorkers = Arrays.copyOf(workers, w + 1);
        boolean[] newListed = Arrays.copyOf(listed, w + 1);
        newWorkers[w] = worker;
        newListed[w] = true;
        // Insert into id order by binary search: no re-sort of the table.
        int lo = 0;
        int hi = byId.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (workers[byId[mid]].id().compareTo(worker.id()) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        int[] newById = new int[w + 1];
        System.arraycopy(byId, 0, newById, 0, lo);
        newById[lo] = w;
        System.arraycopy(byId, lo, newById, lo + 1, w - lo);
        int[] newRank = new int[w + 1];
        for (int r = 0; r <= w; r++) {
            newRank[newById[r]] = r;
        }
        Map<String, Integer> newIndex = new HashMap<>(workerIndex);
        newIndex.put(worker.id(), w);
        return withWorkerTable(newWorkers, newListed, newById, newRank, newIndex);
    }

    /**
     * This input without the worker {@code id}: items on it move, as if it were offline. Unknown ids are ignored.
     */
    public PlanInput withoutWorker(String id) {
        Integer existing = workerIndex.get(id);
        if (existing == null || !listed[existing]) {
            return this;
        }
        int w = existing;
        Worker[] newWorkers = workers.clone();
        boolean[] newListed = listed.clone();
        newWorkers[w] = absent(id);
        newListed[w] = false;
        return withWorkerTable(newWorkers, newListed, byId, rank, workerIndex);
    }

    /** This input with {@code list} as the workers: listed ones not in it leave, new ones join. */
    public PlanInput withWorkers(Collection<Worker> list) {
        Map<String, Worker> byName = new HashMap<>();
        for (Worker worker : list) {
            if (byName.put(worker.id(), worker) != null) {
                throw new IllegalArgumentException("worker '" + worker.id() + "' is listed twice");
            }
        }
        PlanInput result = this;
        for (int w = 0; w < workers.length; w++) {
            if (listed[w] && !byName.containsKey(workers[w].id())) {
                result = result.withoutWorker(workers[w].id());
            }
        }
        List<String> names = new ArrayList<>(byName.keySet());
        Collections.sort(names);
        for (String name : names) {
            result = result.withWorker(byName.get(name));
        }
        return result;
    }

    /**
     * This input's items and workers with {@code plan}'s assignment as the current one. The plan must come from
     * this input or from one it was derived from with the same items (for example by {@link #withWorker}).
     */
    public PlanInput withAssignment(Plan plan) {
        PlanInput from = plan.input();
        if (from.itemIds != itemIds) {
            throw new IllegalArgumentException("the plan was made for other items; build a new input instead");
        }
        if (from.workers.length > workers.length) {
            throw new IllegalArgumentException("the plan was made for a worker table this input does not extend");
        }
        for (int w = 0; w < from.workers.length; w++) {
            if (!from.workers[w].id().equals(workers[w].id())) {
                throw new IllegalArgumentException("the plan was made for a worker table this input does not extend");
            }
        }
        long[] loads = Arrays.copyOf(plan.loads, workers.length);
        return new PlanInput(itemIds, weights, plan.assignment, new int[0], new int[0], new String[0], new int[0],
                workers, listed, byId, rank, workerIndex, loads, plan.mode(), plan.unassignedCount(), itemIndex);
    }

    private PlanInput withWorkerTable(Worker[] newWorkers, boolean[] newListed, int[] newById, int[] newRank,
            Map<String, Integer> newIndex) {
        long[] loads = currentLoads == null ? null : Arrays.copyOf(currentLoads, newWorkers.length);
        return new PlanInput(itemIds, weights, current, extraItem, extraWorker, staleItem, staleWorker, newWorkers,
                newListed, newById, newRank, newIndex, loads, currentLoadsMode, currentUnplaced, itemIndex);
    }

    long weight(int item) {
        return weights == null ? 1 : weights[item];
    }

    int workerCount() {
        return workers.length;
    }

    /** The item's index in canonical order, or -1 if it is not desired. */
    int indexOf(String itemId) {
        Map<String, Integer> index = itemIndex;
        if (index == null) {
            index = new HashMap<>(itemIds.length * 2);
            for (int i = 0; i < itemIds.length; i++) {
                index.put(itemIds[i], i);
            }
            itemIndex = index;
        }
        Integer i = index.get(itemId);
        return i == null ? -1 : i;
    }

    /** The worker index of {@code id}, or -1 if the table has no such worker. */
    int workerIndexOf(String id) {
        Integer w = workerIndex.get(id);
        return w == null ? -1 : w;
    }

    private static Worker absent(String id) {
        return new Worker(id, 0, 0, 0, false);
    }

    /**
     * Collects items, workers and the current assignment for a {@link PlanInput}. Not thread-safe; {@link #build()}
     * validates (unique item ids, unique worker ids) and may be called more than once.
     */
    public static final class Builder {

        private final List<String> ids = new ArrayList<>();
        private long[] itemWeights = new long[16];
        private boolean weighted;
        private final List<Worker> workerList = new ArrayList<>();
        private final List<String> placedItems = new ArrayList<>();
        private final List<String> placedWorkers = new ArrayList<>();

        private Builder() {
        }

        /** A desired item of weight 1. */
        public Builder item(String id) {
            return item(id, PlanItem.DEFAULT_WEIGHT);
        }

        /** A desired item (weight at least 1). */
        public Builder item(String id, long weight) {
            Objects.requireNonNull(id, "item id");
            if (id.isEmpty()) {
                throw new IllegalArgumentException("item id must not be empty");
            }
            if (weight < 1) {
                throw new IllegalArgumentException("weight of item '" + id + "' must be at least 1, got " + weight);
            }
            if (ids.size() == itemWeights.length) {
                itemWeights = Arrays.copyOf(itemWeights, itemWeights.length * 2);
            }
            itemWeights[ids.size()] = weight;
            weighted |= weight != PlanItem.DEFAULT_WEIGHT;
            ids.add(id);
            return this;
        }

        /** A desired item. */
        public Builder item(PlanItem item) {
            return item(item.id(), item.weight());
        }

        /** Desired items. */
        public Builder items(Collection<PlanItem> items) {
            items.forEach(this::item);
            return this;
        }

        /** A worker. */
        public Builder worker(Worker worker) {
            workerList.add(Objects.requireNonNull(worker, "worker"));
            return this;
        }

        /** Workers. */
        public Builder workers(Collection<Worker> workers) {
            workers.forEach(this::worker);
            return this;
        }

        /**
         * A current placement: {@code itemId} runs on {@code workerId} now. An item may be placed on several workers
         * (each is a placement); either id may be unknown.
         */
        public Builder assigned(String itemId, String workerId) {
            Objects.requireNonNull(itemId, "item id");
            Objects.requireNonNull(workerId, "worker id");
            placedItems.add(itemId);
            placedWorkers.add(workerId);
            return this;
        }

        /** Current placements, item id to worker id. */
        public Builder assignment(Map<String, String> assignment) {
            assignment.forEach(this::assigned);
            return this;
        }

        public PlanInput build() {
            // Workers: listed ones sorted by id, then ids only the current assignment names (absent, offline).
            Map<String, Integer> index = new HashMap<>();
            List<Worker> table = new ArrayList<>(workerList);
            table.sort((a, b) -> a.id().compareTo(b.id()));
            for (int w = 0; w < table.size(); w++) {
                if (index.put(table.get(w).id(), w) != null) {
                    throw new IllegalArgumentException("worker '" + table.get(w).id() + "' is listed twice");
                }
            }
            int listedCount = table.size();
            List<String> unknown = new ArrayList<>();
            for (String workerId : placedWorkers) {
                if (!index.containsKey(workerId)) {
                    index.put(workerId, -1);
                    unknown.add(workerId);
                }
            }
            Collections.sort(unknown);
            for (String id : unknown) {
                index.put(id, table.size());
                table.add(absent(id));
            }
            int workerCount = table.size();
            Worker[] workers = table.toArray(Worker[]::new);
            boolean[] listed = new boolean[workerCount];
            Arrays.fill(listed, 0, listedCount, true);
            int[] byId = new int[workerCount];
            int[] rank = new int[workerCount];
            // Listed and unknown ids are each sorted; merge them into one id order.
            Integer[] all = new Integer[workerCount];
            for (int w = 0; w < workerCount; w++) {
                all[w] = w;
            }
            Arrays.sort(all, (a, b) -> workers[a].id().compareTo(workers[b].id()));
            for (int r = 0; r < workerCount; r++) {
                byId[r] = all[r];
                rank[all[r]] = r;
            }

            // Items in canonical order.
            String[] given = ids.toArray(String[]::new);
            int[] order = ItemOrder.sort(given);
            int n = given.length;
            String[] itemIds = new String[n];
            long[] weights = weighted ? new long[n] : null;
            for (int k = 0; k < n; k++) {
                itemIds[k] = given[order[k]];
                if (weights != null) {
                    weights[k] = itemWeights[order[k]];
                }
                if (k > 0 && itemIds[k].equals(itemIds[k - 1])) {
                    throw new IllegalArgumentException("item '" + itemIds[k] + "' is listed twice");
                }
            }

            // Placements in the same order, merged with the items.
            String[] placed = placedItems.toArray(String[]::new);
            int[] placedOrder = ItemOrder.sort(placed);
            int[] current = new int[n];
            Arrays.fill(current, -1);
            List<int[]> extras = new ArrayList<>();
            List<String> staleItems = new ArrayList<>();
            List<Integer> staleWorkers = new ArrayList<>();
            int k = 0;
            int p = 0;
            while (p < placed.length) {
                String item = placed[placedOrder[p]];
                int worker = index.get(placedWorkers.get(placedOrder[p]));
                while (k < n && ItemOrder.compare(itemIds[k], item) < 0) {
                    k++;
                }
                if (k < n && itemIds[k].equals(item)) {
                    int now = current[k];
                    if (now < 0) {
                        current[k] = worker;
                    } else if (now != worker && !containsExtra(extras, k, worker)) {
                        // Keep the placement on the worker with the smallest id as the item's current one.
                        if (rank[worker] < rank[now]) {
                            current[k] = worker;
                            extras.add(new int[] {k, now});
                        } else {
                            extras.add(new int[] {k, worker});
                        }
                    }
                } else {
                    boolean repeated = !staleItems.isEmpty() && staleItems.get(staleItems.size() - 1).equals(item)
                            && staleWorkers.get(staleWorkers.size() - 1) == worker;
                    if (!repeated) {
                        staleItems.add(item);
                        staleWorkers.add(worker);
                    }
                }
                p++;
            }
            extras.sort((a, b) -> a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(rank[a[1]], rank[b[1]]));
            int[] extraItem = new int[extras.size()];
            int[] extraWorker = new int[extras.size()];
            for (int e = 0; e < extras.size(); e++) {
                extraItem[e] = extras.get(e)[0];
                extraWorker[e] = extras.get(e)[1];
            }
            // Stale placements of one item are grouped but their workers are in input order: sort by worker id.
            Integer[] staleOrder = new Integer[staleItems.size()];
            for (int s = 0; s < staleOrder.length; s++) {
                staleOrder[s] = s;
            }
            Arrays.sort(staleOrder, (a, b) -> {
                int byItem = ItemOrder.compare(staleItems.get(a), staleItems.get(b));
                return byItem != 0 ? byItem : Integer.compare(rank[staleWorkers.get(a)], rank[staleWorkers.get(b)]);
            });
            List<String> uniqueStaleItems = new ArrayList<>();
            List<Integer> uniqueStaleWorkers = new ArrayList<>();
            for (Integer s : staleOrder) {
                String item = staleItems.get(s);
                int worker = staleWorkers.get(s);
                int last = uniqueStaleItems.size() - 1;
                if (last >= 0 && uniqueStaleItems.get(last).equals(item) && uniqueStaleWorkers.get(last) == worker) {
                    continue;
                }
                uniqueStaleItems.add(item);
                uniqueStaleWorkers.add(worker);
            }
            int[] staleWorker = uniqueStaleWorkers.stream().mapToInt(Integer::intValue).toArray();
            return new PlanInput(itemIds, weights, current, extraItem, extraWorker,
                    uniqueStaleItems.toArray(String[]::new), staleWorker, workers, listed, byId, rank, index, null,
                    null, -1, null);
        }

        private static boolean containsExtra(List<int[]> extras, int item, int worker) {
            // Extras of one item are added while its placements are merged, so they sit at the end of the list.
            for (int e = extras.size() - 1; e >= 0 && extras.get(e)[0] == item; e--) {
                if (extras.get(e)[1] == worker) {
                    return true;
                }
            }
            return false;
        }
    }
}

package dev.baton.work.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Weighted mode: a worker's load is the total weight of its items and its capacity a total weight.
 *
 * <p>The plan keeps every item on its current worker if that worker is eligible and within capacity (a worker over
 * capacity gives up its heaviest items first, until it fits). The items to place (new, on no or an ineligible worker,
 * or given up) go heaviest first, each to the least loaded worker with room for it (ties: DRS score, then id). Then,
 * while some worker A and another worker B with room for A's heaviest item satisfy {@code load(A) − heaviest(A) >
 * load(B)}, that item moves from A to B. Each such move lowers the sum of squared loads, so this ends; when it has,
 * {@code load(A) <= load(B) + heaviest(A)} for every such pair, which is the weighted balance guarantee. Placing an
 * item on the least loaded worker with room keeps that guarantee, so when a worker leaves a balanced assignment only
 * its items move.
 */
final class WeightedBalancer {

    private WeightedBalancer() {
    }

    static Plan plan(PlanInput in, DrsWeights drs) {
        return plan(in, drs, null);
    }

    /**
     * Weighted mode when {@code band} is null; load mode otherwise: the same keeping, eviction and placement, then
     * {@link LoadBand}'s capped moves instead of the unbounded rebalance.
     */
    static Plan plan(PlanInput in, DrsWeights drs, PlannerConfig band) {
        BalanceMode mode = band == null ? BalanceMode.WEIGHTED : BalanceMode.LOAD;
        Eligibility elig = new Eligibility(in, drs);
        int n = in.itemCount();
        int workerCount = elig.workerCount;
        boolean[] eligible = elig.eligible;
        int[] cur = elig.effective;
        long[] cap = new long[workerCount];
        long maxCap = 0;
        for (int w = 0; w < workerCount; w++) {
            if (eligible[w]) {
                cap[w] = in.workers[w].capacity();
                maxCap = Math.max(maxCap, cap[w]);
            }
        }

        long[] load = new long[workerCount];
        boolean cached = in.currentLoads != null && in.currentLoadsMode != BalanceMode.COUNT && cur == in.current;
        if (cached) {
            System.arraycopy(in.currentLoads, 0, load, 0, workerCount);
        } else {
            for (int i = 0; i < n; i++) {
                if (cur[i] >= 0) {
                    load[cur[i]] += in.weight(i);
                }
            }
        }
        boolean scan = !cached || in.currentUnplaced > 0;
        boolean over = false;
        for (int w = 0; w < workerCount; w++) {
            if (!eligible[w] && load[w] > 0) {
                scan = true;
            }
            if (eligible[w] && load[w] > cap[w]) {
                over = true;
            }
            if (!eligible[w]) {
                load[w] = 0;
            }
        }

        int[] result = cur.clone();
        IntList pending = new IntList(16);
        if (scan) {
            for (int i = 0; i < n; i++) {
                int w = cur[i];
                if (w < 0 || !eligible[w]) {
                    pending.add(i);
                    result[i] = -1;
                }
            }
        }
        if (over) {
            evictOverCapacity(in, eligible, cap, load, result, pending);
        }

        int[] order = pending.toArray();
        if (in.weights != null) {
            IntSort.sort(order, order.length, (a, b) -> {
                int byWeight = Long.compare(in.weights[b], in.weights[a]);
                return byWeight != 0 ? byWeight : Integer.compare(a, b);
            });
        }
        IntList unassigned = new IntList(4);
        List<UnassignedReason> reasons = new ArrayList<>();
        place(in, elig, cap, maxCap, load, result, order, unassigned, reasons);

        if (band != null) {
            LoadBand balancing = new LoadBand(in, elig, cap, load, result, band);
            balancing.run();
            // The moves gave some workers room; an item that found none may fit now. Placing only takes room away,
            // so one pass leaves every item still unplaced without room anywhere.
            if (balancing.movedItems().length > 0 && reasons.contains(UnassignedReason.NO_CAPACITY)) {
                IntList stillUnassigned = new IntList(4);
                List<UnassignedReason> stillReasons = new ArrayList<>();
                place(in, elig, cap, maxCap, load, result, retryOrder(in, unassigned, reasons), stillUnassigned,
                        stillReasons);
                for (int k = 0; k < unassigned.size(); k++) {
                    if (reasons.get(k) != UnassignedReason.NO_CAPACITY) {
                        stillUnassigned.add(unassigned.get(k));
                        stillReasons.add(reasons.get(k));
                    }
                }
                unassigned = stillUnassigned;
                reasons = stillReasons;
            }
            return finish(in, cur, mode, result, load, order, balancing.movedItems(), unassigned, reasons);
        }
        Rebalance rebalance = new Rebalance(in, elig, cap, load, result);
        rebalance.run();
        // Rebalancing shifts room between workers; an item that found none may fit now.
        while (unassigned.size() > 0 && reasons.contains(UnassignedReason.NO_CAPACITY)) {
            int[] retry = retryOrder(in, unassigned, reasons);
            IntList stillUnassigned = new IntList(4);
            List<UnassignedReason> stillReasons = new ArrayList<>();
            place(in, elig, cap, maxCap, load, result, retry, stillUnassigned, stillReasons);
            for (int k = 0; k < unassigned.size(); k++) {
                if (reasons.get(k) != UnassignedReason.NO_CAPACITY) {
                    stillUnassigned.add(unassigned.get(k));
                    stillReasons.add(reasons.get(k));
                }
            }
            boolean progress = stillUnassigned.size() < unassigned.size();
            unassigned = stillUnassigned;
            reasons = stillReasons;
            if (!progress) {
                break;
            }
            rebalance.run();
        }

        return finish(in, cur, mode, result, load, order, rebalance.movedItems(), unassigned, reasons);
    }

    private static Plan finish(PlanInput in, int[] cur, BalanceMode mode, int[] result, long[] load, int[] order,
            int[] balanced, IntList unassigned, List<UnassignedReason> reasons) {
        int[] moved = movedItems(in, result, order, balanced);
        int[] permutation = canonicalPermutation(unassigned);
        UnassignedReason[] reasonArray = new UnassignedReason[permutation.length];
        for (int k = 0; k < permutation.length; k++) {
            reasonArray[k] = reasons.get(permutation[k]);
        }
        int[] assignment = moved.length == 0 && cur == in.current ? in.current : result;
        return new Plan(in, mode, assignment, load, moved, sortedItems(unassigned, permutation),
                reasonArray);
    }

    /** Places items heaviest first, each on the least loaded worker with room. */
    private static void place(PlanInput in, Eligibility elig, long[] cap, long maxCap, long[] load, int[] result,
            int[] order, IntList unassigned, List<UnassignedReason> reasons) {
        if (order.length == 0) {
            return;
        }
        long lightest = in.weight(order[order.length - 1]);
        WorkerQueue queue = new WorkerQueue(load, elig);
        for (int w = 0; w < elig.workerCount; w++) {
            if (elig.eligible[w] && cap[w] - load[w] >= lightest) {
                queue.add(w);
            }
        }
        for (int i : order) {
            long weight = in.weight(i);
            int w = weight > maxCap ? -1 : queue.firstWithRoom(weight, cap, -1);
            if (w < 0) {
                unassigned.add(i);
                reasons.add(elig.eligibleCount == 0 ? UnassignedReason.NO_WORKERS_AVAILABLE
                        : weight > maxCap ? UnassignedReason.ITEM_TOO_LARGE : UnassignedReason.NO_CAPACITY);
                continue;
            }
            result[i] = w;
            load[w] += weight;
            if (cap[w] - load[w] < lightest) {
                queue.remove(w);
            } else {
                queue.update(w);
            }
        }
    }

    /** Workers over capacity give up their heaviest items (ties: the last in canonical order) until they fit. */
    private static void evictOverCapacity(PlanInput in, boolean[] eligible, long[] cap, long[] load, int[] result,
            IntList pending) {
        int n = in.itemCount();
        IntList candidates = new IntList(16);
        for (int i = 0; i < n; i++) {
            int w = result[i];
            if (w >= 0 && load[w] > cap[w]) {
                candidates.add(i);
            }
        }
        int[] items = candidates.toArray();
        IntSort.sort(items, items.length, (a, b) -> {
            int byWeight = Long.compare(in.weight(b), in.weight(a));
            return byWeight != 0 ? byWeight : Integer.compare(b, a);
        });
        for (int i : items) {
            int w = result[i];
            if (load[w] > cap[w]) {
                load[w] -= in.weight(i);
                result[i] = -1;
                pending.add(i);
            }
        }
    }

    /** The items that found no room, heaviest first (the order they were tried in). */
    private static int[] retryOrder(PlanInput in, IntList unassigned, List<UnassignedReason> reasons) {
        IntList retry = new IntList(unassigned.size());
        for (int k = 0; k < unassigned.size(); k++) {
            if (reasons.get(k) == UnassignedReason.NO_CAPACITY) {
                retry.add(unassigned.get(k));
            }
        }
        return retry.toArray();
    }

    /** The unassigned items in canonical order (they were collected heaviest first), with their reasons. */
    private static int[] sortedItems(IntList unassigned, int[] permutation) {
        int[] items = new int[permutation.length];
        for (int k = 0; k < permutation.length; k++) {
            items[k] = unassigned.get(permutation[k]);
        }
        return items;
    }

    private static int[] canonicalPermutation(IntList unassigned) {
        int[] permutation = new int[unassigned.size()];
        for (int k = 0; k < permutation.length; k++) {
            permutation[k] = k;
        }
        IntSort.sort(permutation, permutation.length,
                (a, b) -> Integer.compare(unassigned.get(a), unassigned.get(b)));
        return permutation;
    }

    private static int[] movedItems(PlanInput in, int[] result, int[] placed, int[] rebalanced) {
        int[] current = in.current;
        IntList moved = new IntList(placed.length + rebalanced.length + in.extraItem.length);
        for (int i : placed) {
            if (result[i] != current[i]) {
                moved.add(i);
            }
        }
        for (int i : rebalanced) {
            if (result[i] != current[i]) {
                moved.add(i);
            }
        }
        for (int i : in.extraItem) {
            moved.add(i);
        }
        int[] array = moved.toArray();
        Arrays.sort(array);
        int size = 0;
        for (int k = 0; k < array.length; k++) {
            if (size == 0 || array[size - 1] != array[k]) {
                array[size++] = array[k];
            }
        }
        return Arrays.copyOf(array, size);
    }
}

package dev.baton.work.plan;

import java.util.Arrays;

/**
 * Count mode: every item counts as one and loads are water-filled.
 *
 * <p>With A items to place (the desired items, or the total capacity if smaller), the level T is the largest
 * integer with {@code Σ min(cap, T) <= A}; every eligible worker's target is {@code min(cap, T)}, and the
 * {@code A - Σ min(cap, T)} items left over raise that many workers with {@code cap > T} to T + 1. Those extra slots
 * go first to workers that already hold more than T items (so nothing moves that need not), then to the best DRS
 * score at load T, then to the smallest worker id. Each worker keeps its current items up to its target (the first
 * ones in canonical order) and the rest, with the items on no or an ineligible worker, fill the workers below target
 * in id order. Cost: O(W log W) for the targets, one pass over the items to find the ones to place (none when the
 * input carries the loads of the previous plan and no worker holding items became ineligible), and O(moves) to place
 * them; a copy of the assignment array.
 */
final class CountBalancer {

    private CountBalancer() {
    }

    static Plan plan(PlanInput in, DrsWeights drs) {
        Eligibility elig = new Eligibility(in, drs);
        int n = in.itemCount();
        int workerCount = elig.workerCount;
        boolean[] eligible = elig.eligible;
        int[] cur = elig.effective;

        int[] cap = new int[workerCount];
        long totalCap = 0;
        for (int w = 0; w < workerCount; w++) {
            if (eligible[w]) {
                cap[w] = (int) Math.min(in.workers[w].capacity(), n);
                totalCap += cap[w];
            }
        }

        // Current loads: from the previous plan when the input carries them, else one counting pass.
        int[] load = new int[workerCount];
        boolean cached = in.currentLoads != null && in.currentLoadsMode == BalanceMode.COUNT && cur == in.current;
        if (cached) {
            for (int w = 0; w < workerCount; w++) {
                load[w] = (int) in.currentLoads[w];
            }
        } else {
            for (int i = 0; i < n; i++) {
                int w = cur[i];
                if (w >= 0) {
                    load[w]++;
                }
            }
        }
        long keptTotal = 0;
        for (int w = 0; w < workerCount; w++) {
            if (eligible[w]) {
                keptTotal += load[w];
            }
        }

        int placeable = (int) Math.min(n, totalCap);
        int[] target = targets(elig, cap, load, placeable);

        boolean excess = false;
        for (int w = 0; w < workerCount; w++) {
            if (eligible[w] && load[w] > target[w]) {
                excess = true;
                break;
            }
        }

        // The items to place, in canonical order: on no or an ineligible worker, or beyond their worker's target.
        IntList pending;
        int[] kept = new int[workerCount];
        if (excess) {
            pending = new IntList(64);
            for (int i = 0; i < n; i++) {
                int w = cur[i];
                if (w >= 0 && eligible[w] && kept[w] < target[w]) {
                    kept[w]++;
                } else {
                    pending.add(i);
                }
            }
        } else {
            for (int w = 0; w < workerCount; w++) {
                if (eligible[w]) {
                    kept[w] = load[w];
                }
            }
            pending = new IntList((int) Math.min(n, n - keptTotal));
            if (keptTotal < n) {
                for (int i = 0; i < n; i++) {
                    int w = cur[i];
                    if (w < 0 || !eligible[w]) {
                        pending.add(i);
                    }
                }
            }
        }

        if (pending.size() == 0 && cur == in.current) {
            return new Plan(in, BalanceMode.COUNT, cur, toLongs(kept), new int[0], new int[0],
                    new UnassignedReason[0]);
        }

        int[] result = cur.clone();
        int next = 0;
        int pendingCount = pending.size();
        int[] pendingItems = pending.array();
        for (int r = 0; r < in.byId.length && next < pendingCount; r++) {
            int w = in.byId[r];
            if (!eligible[w]) {
                continue;
            }
            int room = target[w] - kept[w];
            while (room > 0 && next < pendingCount) {
                result[pendingItems[next++]] = w;
                room--;
            }
            kept[w] = target[w] - room;
        }
        int unassignedCount = pendingCount - next;
        int[] unassigned = new int[unassignedCount];
        UnassignedReason[] reasons = new UnassignedReason[unassignedCount];
        UnassignedReason reason = elig.eligibleCount == 0 ? UnassignedReason.NO_WORKERS_AVAILABLE
                : UnassignedReason.NO_CAPACITY;
        for (int u = 0; u < unassignedCount; u++) {
            int i = pendingItems[next + u];
            result[i] = -1;
            unassigned[u] = i;
            reasons[u] = reason;
        }
        int[] moved = movedItems(in, pendingItems, pendingCount, result);
        return new Plan(in, BalanceMode.COUNT, result, toLongs(kept), moved, unassigned, reasons);
    }

    /** Water-filled targets per worker (0 for ineligible ones); see the class comment. */
    private static int[] targets(Eligibility elig, int[] cap, int[] load, int placeable) {
        int workerCount = elig.workerCount;
        boolean[] eligible = elig.eligible;
        int[] target = new int[workerCount];
        if (elig.eligibleCount == 0 || placeable == 0) {
            return target;
        }
        int maxCap = 0;
        for (int w = 0; w < workerCount; w++) {
            if (eligible[w]) {
                maxCap = Math.max(maxCap, cap[w]);
            }
        }
        // Largest T in [0, maxCap] with fill(T) <= placeable; fill is non-decreasing.
        int lo = 0;
        int hi = maxCap;
        while (lo < hi) {
            int mid = (int) (((long) lo + hi + 1) >>> 1);
            if (fill(eligible, cap, mid) <= placeable) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        int level = lo;
        long filled = 0;
        int candidates = 0;
        int aboveLevel = 0;
        for (int w = 0; w < workerCount; w++) {
            if (eligible[w]) {
                target[w] = Math.min(cap[w], level);
                filled += target[w];
                if (cap[w] > level) {
                    candidates++;
                    if (load[w] > level) {
                        aboveLevel++;
                    }
                }
            }
        }
        int extra = (int) (placeable - filled);
        if (extra == 0) {
            return target;
        }
        int[] order = new int[candidates];
        int c = 0;
        for (int w = 0; w < workerCount; w++) {
            if (eligible[w] && cap[w] > level) {
                order[c++] = w;
            }
        }
        int[] rank = elig.rank;
        if (aboveLevel == extra) {
            // Exactly the workers above the level keep their extra item: no ordering needed.
            for (int w : order) {
                if (load[w] > level) {
                    target[w]++;
                }
            }
            return target;
        }
        // Scores at the level, computed once per candidate rather than in every comparison.
        double[] score = new double[workerCount];
        for (int w : order) {
            score[w] = elig.score(w, level);
        }
        IntSort.sort(order, candidates, (a, b) -> {
            boolean aboveA = load[a] > level;
            boolean aboveB = load[b] > level;
            if (aboveA != aboveB) {
                return aboveA ? -1 : 1;
            }
            int byScore = Double.compare(score[a], score[b]);
            return byScore != 0 ? byScore : Integer.compare(rank[a], rank[b]);
        });
        for (int k = 0; k < extra; k++) {
            target[order[k]]++;
        }
        return target;
    }

    private static long fill(boolean[] eligible, int[] cap, int level) {
        long sum = 0;
        for (int w = 0; w < cap.length; w++) {
            if (eligible[w]) {
                sum += Math.min(cap[w], level);
            }
        }
        return sum;
    }

    /** The pending items whose worker changed, plus every item that had duplicate placements, in canonical order. */
    static int[] movedItems(PlanInput in, int[] pending, int pendingCount, int[] result) {
        int[] current = in.current;
        IntList moved = new IntList(pendingCount);
        int[] extras = in.extraItem;
        int e = 0;
        for (int p = 0; p < pendingCount; p++) {
            int i = pending[p];
            while (e < extras.length && extras[e] < i) {
                addExtra(moved, extras[e]);
                e++;
            }
            if (result[i] != current[i] || (e < extras.length && extras[e] == i)) {
                moved.add(i);
            }
        }
        while (e < extras.length) {
            addExtra(moved, extras[e]);
            e++;
        }
        int[] array = moved.toArray();
        if (extras.length > 0) {
            Arrays.sort(array);
            return dedupe(array);
        }
        return array;
    }

    private static void addExtra(IntList moved, int item) {
        if (moved.size() == 0 || moved.get(moved.size() - 1) != item) {
            moved.add(item);
        }
    }

    private static int[] dedupe(int[] sorted) {
        int size = 0;
        for (int k = 0; k < sorted.length; k++) {
            if (size == 0 || sorted[size - 1] != sorted[k]) {
                sorted[size++] = sorted[k];
            }
        }
        return Arrays.copyOf(sorted, size);
    }

    private static long[] toLongs(int[] values) {
        long[] longs = new long[values.length];
        for (int k = 0; k < values.length; k++) {
            longs[k] = values[k];
        }
        return longs;
    }
}

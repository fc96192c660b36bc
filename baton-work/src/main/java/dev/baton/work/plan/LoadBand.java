package dev.baton.work.plan;

/**
 * Load mode's balancing step: leaves the assignment alone while every eligible worker's load is within the band
 * around the mean ({@code mean × (1 ± band)}), and otherwise makes at most {@code maxMovesPerRound} moves, each
 * from the most loaded worker that can give to the least loaded worker with room.
 *
 * <p>Each move takes the cheapest item that brings the giver (or the taker) inside the band without pushing the
 * other one out of it; when no single item does that, the item whose move best evens out the pair (cost closest
 * to half their difference). Every move costs less than the pair's difference, so it lowers the sum of squared
 * loads and the moves end. While some worker is outside the band the most and least loaded workers differ by more
 * than {@code band × mean}, so when every item costs at most that (and capacity allows) a move is always found:
 * enough rounds bring every worker inside the band.
 */
final class LoadBand {

    private final PlanInput in;
    private final Eligibility elig;
    private final long[] cap;
    private final long[] load;
    private final int[] result;
    private final double band;
    private final int maxMoves;
    private final IntList moved = new IntList(4);
    /** Per worker, the items on it (built at the first move; an item that left stays listed and is skipped). */
    private IntList[] itemsOf;

    LoadBand(PlanInput in, Eligibility elig, long[] cap, long[] load, int[] result, PlannerConfig config) {
        this.in = in;
        this.elig = elig;
        this.cap = cap;
        this.load = load;
        this.result = result;
        this.band = config.imbalanceBand();
        this.maxMoves = config.maxMovesPerRound();
    }

    void run() {
        if (elig.eligibleCount < 2 || maxMoves == 0) {
            return;
        }
        long total = 0;
        for (int w = 0; w < elig.workerCount; w++) {
            if (elig.eligible[w]) {
                total += load[w];
            }
        }
        double mean = (double) total / elig.eligibleCount;
        double hi = mean * (1 + band);
        double lo = mean * (1 - band);
        int[] givers = new int[elig.eligibleCount];
        while (moved.size() < maxMoves) {
            int taker = leastLoadedWithRoom();
            if (taker < 0) {
                return;
            }
            int count = 0;
            for (int w = 0; w < elig.workerCount; w++) {
                if (elig.eligible[w] && w != taker && load[w] > load[taker] + 1) {
                    givers[count++] = w;
                }
            }
            IntSort.sort(givers, count, (a, b) -> {
                int byLoad = Long.compare(load[b], load[a]);
                return byLoad != 0 ? byLoad : Integer.compare(elig.rank[a], elig.rank[b]);
            });
            boolean found = false;
            for (int k = 0; k < count && !found; k++) {
                int giver = givers[k];
                if (load[giver] <= hi && load[taker] >= lo) {
                    break; // givers are sorted by load: every later one is inside the band too
                }
                int item = choose(giver, taker, hi, lo);
                if (item >= 0) {
                    long cost = in.weight(item);
                    load[giver] -= cost;
                    load[taker] += cost;
                    result[item] = taker;
                    itemsOf[taker].add(item);
                    moved.add(item);
                    found = true;
                }
            }
            if (!found) {
                return;
            }
        }
    }

    /** Items moved, in the order they moved (an item may appear more than once). */
    int[] movedItems() {
        return moved.toArray();
    }

    /** The least loaded eligible worker with room for anything (ties: DRS score at that load, then id), or -1. */
    private int leastLoadedWithRoom() {
        int best = -1;
        for (int w = 0; w < elig.workerCount; w++) {
            if (!elig.eligible[w] || cap[w] - load[w] < 1) {
                continue;
            }
            if (best < 0 || load[w] < load[best] || load[w] == load[best] && before(w, best)) {
                best = w;
            }
        }
        return best;
    }

    private boolean before(int a, int b) {
        int byScore = Double.compare(elig.score(a, load[a]), elig.score(b, load[b]));
        return byScore != 0 ? byScore < 0 : elig.rank[a] < elig.rank[b];
    }

    /**
     * The item to move from {@code giver} to {@code taker}, or -1: among the items that cost less than the pair's
     * difference and fit the taker's room, the cheapest that settles the pair inside the band, else the one closest
     * to half the difference (ties: the cheaper, then the first in canonical order).
     */
    private int choose(int giver, int taker, double hi, double lo) {
        long gap = load[giver] - load[taker];
        long room = cap[taker] - load[taker];
        double need = Math.max(load[giver] - hi, lo - load[taker]);
        double most = Math.min(hi - load[taker], load[giver] - lo);
        if (itemsOf == null) {
            buildItemLists();
        }
        IntList items = itemsOf[giver];
        int settling = -1;
        int evening = -1;
        for (int k = 0; k < items.size(); k++) {
            int i = items.get(k);
            if (result[i] != giver) {
                continue;
            }
            long cost = in.weight(i);
            if (cost >= gap || cost > room) {
                continue;
            }
            if (cost >= need && cost <= most && (settling < 0 || cheaper(i, settling))) {
                settling = i;
            }
            if (evening < 0 || closerToHalf(i, evening, gap)) {
                evening = i;
            }
        }
        return settling >= 0 ? settling : evening;
    }

    private void buildItemLists() {
        itemsOf = new IntList[elig.workerCount];
        for (int w = 0; w < elig.workerCount; w++) {
            itemsOf[w] = new IntList(4);
        }
        for (int i = 0; i < result.length; i++) {
            if (result[i] >= 0) {
                itemsOf[result[i]].add(i);
            }
        }
    }

    /** Cheaper, or as cheap and first in canonical order (the lists are not in that order once items moved). */
    private boolean cheaper(int a, int b) {
        long ca = in.weight(a);
        long cb = in.weight(b);
        return ca != cb ? ca < cb : a < b;
    }

    private boolean closerToHalf(int a, int b, long gap) {
        long da = Math.abs(2 * in.weight(a) - gap);
        long db = Math.abs(2 * in.weight(b) - gap);
        return da != db ? da < db : cheaper(a, b);
    }
}

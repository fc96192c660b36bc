package dev.baton.work.plan;

/**
 * What both balancers need first: which workers may hold items, each item's effective current worker (for an item
 * placed on several workers, the first placement on an eligible worker), and the DRS score's parts per worker.
 */
final class Eligibility {

    final int workerCount;
    /** Per worker index, its position in id order (the last tie-break). */
    final int[] rank;
    /** Listed, online, capacity above zero. */
    final boolean[] eligible;
    final int eligibleCount;
    /** Per item, the current worker the planner starts from (may be ineligible), or -1. */
    final int[] effective;
    /** The DRS score's load weight divided by the capacity (0 when unlimited) and its CPU and memory part. */
    final double[] loadScorePerUnit;
    final double[] fixedScore;

    Eligibility(PlanInput in, DrsWeights drs) {
        workerCount = in.workerCount();
        rank = in.rank;
        eligible = new boolean[workerCount];
        loadScorePerUnit = new double[workerCount];
        fixedScore = new double[workerCount];
        int count = 0;
        for (int w = 0; w < workerCount; w++) {
            Worker worker = in.workers[w];
            eligible[w] = in.listed[w] && worker.online() && worker.capacity() > 0;
            if (eligible[w]) {
                count++;
            }
            loadScorePerUnit[w] = worker.capacity() == Worker.UNLIMITED ? 0 : drs.load() / worker.capacity();
            fixedScore[w] = drs.cpu() * worker.cpu() + drs.memory() * worker.memory();
        }
        eligibleCount = count;
        effective = resolveDuplicates(in);
    }

    /** The DRS score of worker {@code w} if it held {@code load}. */
    double score(int w, long load) {
        return loadScorePerUnit[w] * load + fixedScore[w];
    }

    private int[] resolveDuplicates(PlanInput in) {
        if (in.extraItem.length == 0) {
            return in.current;
        }
        int[] resolved = in.current.clone();
        for (int e = 0; e < in.extraItem.length; e++) {
            int item = in.extraItem[e];
            int now = resolved[item];
            // Extras of an item are sorted by worker id and the primary placement has the smallest id, so the
            // first eligible one in this order wins.
            if ((now < 0 || !eligible[now]) && eligible[in.extraWorker[e]]) {
                resolved[item] = in.extraWorker[e];
            }
        }
        return resolved;
    }
}

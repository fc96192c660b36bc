package dev.baton.work.plan;

/**
 * The weights of seed 001's DRS score, which breaks ties between equally loaded workers: {@code score = load ×
 * loadFraction + cpu × cpuUtilisation + memory × memoryUtilisation}, lower is better. The load fraction is the
 * worker's load divided by its capacity (0 for an unlimited worker), so among workers with the same load the one
 * with more capacity, then the less busy one, wins. Remaining ties go to the smallest worker id.
 *
 * <p>The seed multiplies a raw item count by 0.4, which lets the count swamp CPU and memory; the planner balances
 * counts (or weights) first and uses the score only among equals, where the fraction keeps the three terms
 * comparable.
 *
 * @param load weight of the load fraction, finite and at least 0
 * @param cpu weight of CPU utilisation, finite and at least 0
 * @param memory weight of memory utilisation, finite and at least 0
 */
public record DrsWeights(double load, double cpu, double memory) {

    /** The seed's weights: 0.4 load, 0.35 CPU, 0.25 memory. */
    public static final DrsWeights SEED = new DrsWeights(0.4, 0.35, 0.25);

    /** Validates that every weight is finite and at least 0, and that not all are 0. */
    public DrsWeights {
        requireWeight("load", load);
        requireWeight("cpu", cpu);
        requireWeight("memory", memory);
        if (load + cpu + memory == 0) {
            throw new IllegalArgumentException("drsWeights: at least one of load, cpu and memory must be above 0");
        }
    }

    private static void requireWeight(String field, double value) {
        if (!Double.isFinite(value) || value < 0) {
            throw new IllegalArgumentException("drsWeights." + field + " must be finite and at least 0, got " + value);
        }
    }

    /** The score of a worker with this load fraction and utilisation; lower is better. */
    public double score(double loadFraction, double cpuUtilisation, double memoryUtilisation) {
        return load * loadFraction + cpu * cpuUtilisation + memory * memoryUtilisation;
    }
}

package dev.baton.work.plan;

import java.util.Objects;

/**
 * The planner's settings, immutable; build with {@link #builder()} or start from {@link #defaults()} or
 * {@link #weighted()}.
 */
public final class PlannerConfig {

    private final BalanceMode mode;
    /** Load mode's default band: every worker within 10% of the mean load. */
    public static final double DEFAULT_IMBALANCE_BAND = 0.10;
    /** Load mode's default cap on balancing moves per plan. */
    public static final int DEFAULT_MAX_MOVES_PER_ROUND = 64;

    private final DrsWeights drsWeights;
    private final double imbalanceBand;
    private final int maxMovesPerRound;

    private PlannerConfig(Builder builder) {
        this.mode = builder.mode;
        this.drsWeights = builder.drsWeights;
        this.imbalanceBand = builder.imbalanceBand;
        this.maxMovesPerRound = builder.maxMovesPerRound;
    }

    /** Count mode with the seed's DRS weights. */
    public static PlannerConfig defaults() {
        return builder().build();
    }

    /** Weighted mode with the seed's DRS weights. */
    public static PlannerConfig weighted() {
        return builder().mode(BalanceMode.WEIGHTED).build();
    }

    /** Load mode with the default band (10%) and move cap (64 per plan). */
    public static PlannerConfig load() {
        return builder().mode(BalanceMode.LOAD).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this configuration's values. */
    public Builder toBuilder() {
        return new Builder().mode(mode).drsWeights(drsWeights).imbalanceBand(imbalanceBand)
                .maxMovesPerRound(maxMovesPerRound);
    }

    /** What is balanced; default {@link BalanceMode#COUNT}. */
    public BalanceMode mode() {
        return mode;
    }

    /** The tie-break weights; default {@link DrsWeights#SEED}. */
    public DrsWeights drsWeights() {
        return drsWeights;
    }

    /**
     * Load mode: how far a worker's load may be from the mean before the planner moves items, as a fraction of the
     * mean; default {@value #DEFAULT_IMBALANCE_BAND}. Ignored by the other modes.
     */
    public double imbalanceBand() {
        return imbalanceBand;
    }

    /**
     * Load mode: the most balancing moves one plan makes (placing new items and moving items off ineligible workers
     * do not count); default {@value #DEFAULT_MAX_MOVES_PER_ROUND}. Ignored by the other modes.
     */
    public int maxMovesPerRound() {
        return maxMovesPerRound;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PlannerConfig other && mode == other.mode && drsWeights.equals(other.drsWeights)
                && Double.compare(imbalanceBand, other.imbalanceBand) == 0
                && maxMovesPerRound == other.maxMovesPerRound;
    }

    @Override
    public int hashCode() {
        return Objects.hash(mode, drsWeights, imbalanceBand, maxMovesPerRound);
    }

    @Override
    public String toString() {
        return "PlannerConfig[mode=" + mode + ", drsWeights=" + drsWeights + ", imbalanceBand=" + imbalanceBand
                + ", maxMovesPerRound=" + maxMovesPerRound + "]";
    }

    /** Builds a {@link PlannerConfig}. */
    public static final class Builder {

        private BalanceMode mode = BalanceMode.COUNT;
        private DrsWeights drsWeights = DrsWeights.SEED;
        private double imbalanceBand = DEFAULT_IMBALANCE_BAND;
        private int maxMovesPerRound = DEFAULT_MAX_MOVES_PER_ROUND;

        private Builder() {
        }

        /**
         * Load mode's band around the mean load, as a fraction of the mean: above 0 and below 1; default
         * {@value #DEFAULT_IMBALANCE_BAND}.
         */
        public Builder imbalanceBand(double band) {
            if (!(band > 0 && band < 1)) {
                throw new IllegalArgumentException("imbalanceBand must be above 0 and below 1, got " + band);
            }
            this.imbalanceBand = band;
            return this;
        }

        /** Load mode's cap on balancing moves per plan: at least 0 (0: only placements); default 64. */
        public Builder maxMovesPerRound(int moves) {
            if (moves < 0) {
                throw new IllegalArgumentException("maxMovesPerRound must be at least 0, got " + moves);
            }
            this.maxMovesPerRound = moves;
            return this;
        }

        /** What is balanced; default {@link BalanceMode#COUNT}. */
        public Builder mode(BalanceMode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /** The DRS tie-break weights; default {@link DrsWeights#SEED} (validated by {@link DrsWeights}). */
        public Builder drsWeights(DrsWeights drsWeights) {
            this.drsWeights = Objects.requireNonNull(drsWeights, "drsWeights");
            return this;
        }

        /** The DRS tie-break weights, validated: each finite and at least 0, not all 0. */
        public Builder drsWeights(double load, double cpu, double memory) {
            return drsWeights(new DrsWeights(load, cpu, memory));
        }

        public PlannerConfig build() {
            return new PlannerConfig(this);
        }
    }
}

package dev.baton.work.plan;

import java.util.Objects;

/**
 * The planner's settings, immutable; build with {@link #builder()} or start from {@link #defaults()} or
 * {@link #weighted()}.
 */
public final class PlannerConfig {

    private final BalanceMode mode;
    private final DrsWeights drsWeights;

    private PlannerConfig(Builder builder) {
        this.mode = builder.mode;
        this.drsWeights = builder.drsWeights;
    }

    /** Count mode with the seed's DRS weights. */
    public static PlannerConfig defaults() {
        return builder().build();
    }

    /** Weighted mode with the seed's DRS weights. */
    public static PlannerConfig weighted() {
        return builder().mode(BalanceMode.WEIGHTED).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this configuration's values. */
    public Builder toBuilder() {
        return new Builder().mode(mode).drsWeights(drsWeights);
    }

    /** What is balanced; default {@link BalanceMode#COUNT}. */
    public BalanceMode mode() {
        return mode;
    }

    /** The tie-break weights; default {@link DrsWeights#SEED}. */
    public DrsWeights drsWeights() {
        return drsWeights;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PlannerConfig other && mode == other.mode && drsWeights.equals(other.drsWeights);
    }

    @Override
    public int hashCode() {
        return Objects.hash(mode, drsWeights);
    }

    @Override
    public String toString() {
        return "PlannerConfig[mode=" + mode + ", drsWeights=" + drsWeights + "]";
    }

    /** Builds a {@link PlannerConfig}. */
    public static final class Builder {

        private BalanceMode mode = BalanceMode.COUNT;
        private DrsWeights drsWeights = DrsWeights.SEED;

        private Builder() {
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

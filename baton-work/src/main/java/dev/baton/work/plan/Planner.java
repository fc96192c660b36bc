package dev.baton.work.plan;

import java.util.Objects;

/**
 * Plans the assignment of work items to workers: a pure, deterministic function from a {@link PlanInput} to a
 * {@link Plan}. It keeps items where they are unless their worker is gone, offline or over capacity, or balance
 * needs a move; balances item counts ({@link BalanceMode#COUNT}) or total weight ({@link BalanceMode#WEIGHTED})
 * within capacity, or keeps total weight within a band around the mean with a capped number of moves per plan
 * ({@link BalanceMode#LOAD}); and breaks ties between equally loaded workers with seed 001's DRS score ({@link DrsWeights}),
 * then by worker id.
 *
 * <p>Thread-safe and stateless: one planner may serve any number of threads. The guarantees (every item on exactly
 * one worker or reported, balance bounds, minimal movement, determinism) are stated in docs/work.md.
 */
public final class Planner {

    private final PlannerConfig config;

    public Planner(PlannerConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    /** A count-mode planner with the seed's DRS weights. */
    public static Planner defaults() {
        return new Planner(PlannerConfig.defaults());
    }

    public PlannerConfig config() {
        return config;
    }

    /** The plan for {@code input}: the same input, listed in any order, always gives the same plan. */
    public Plan plan(PlanInput input) {
        Objects.requireNonNull(input, "input");
        return switch (config.mode()) {
            case COUNT -> CountBalancer.plan(input, config.drsWeights());
            case WEIGHTED -> WeightedBalancer.plan(input, config.drsWeights());
            case LOAD -> WeightedBalancer.plan(input, config.drsWeights(), config);
        };
    }
}

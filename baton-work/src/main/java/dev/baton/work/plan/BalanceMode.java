package dev.baton.work.plan;

/** What the planner balances. */
public enum BalanceMode {
    /**
     * Item counts: every item counts as one, a worker's capacity is a number of items, and loads end within one of
     * each other among workers that are not full.
     */
    COUNT,
    /**
     * Total item weight: a worker's load is the sum of its items' weights, its capacity a total weight that is never
     * exceeded, and no worker's load exceeds another's by more than its own largest item, unless that one has no
     * room for the item.
     */
    WEIGHTED,
    /**
     * Load within a band: a worker's load is the total cost (weight) of its items and its capacity a total cost
     * that is never exceeded. Nothing moves while every worker's load is within {@link PlannerConfig#imbalanceBand()}
     * of the mean; otherwise a plan makes at most {@link PlannerConfig#maxMovesPerRound()} balancing moves, the
     * fewest and cheapest that bring workers inside the band. New items and items on ineligible workers are placed
     * every plan (least loaded worker first), outside that cap.
     */
    LOAD
}

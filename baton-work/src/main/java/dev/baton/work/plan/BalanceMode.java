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
    WEIGHTED
}

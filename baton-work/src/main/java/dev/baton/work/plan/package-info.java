/**
 * The assignment planner of the work cluster (seed 001's "VMware DRS-like" rebalancing, made a pure function).
 *
 * <p>{@link dev.baton.work.plan.Planner#plan(PlanInput)} takes the desired items, the workers (capacity, CPU and
 * memory utilisation, online or not) and the current assignment, and returns a {@link dev.baton.work.plan.Plan}: the
 * new assignment, the {@link dev.baton.work.plan.Move moves} that reach it and the items it could not place, each
 * with an {@link dev.baton.work.plan.UnassignedReason}. It reads no clock, draws no random number and does not depend
 * on hash-table iteration order: the same input, in any order, gives the same plan. The reconciler (leader only)
 * turns moves into subscribe and unsubscribe commands; nothing here does I/O.
 *
 * <p>docs/work.md states the guarantees and how each is tested.
 */
package dev.baton.work.plan;

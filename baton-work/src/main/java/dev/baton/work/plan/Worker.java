package dev.baton.work.plan;

import java.util.Objects;

/**
 * A worker as the planner sees it: where items can run.
 *
 * <p>{@code capacity} is in the unit of the planner's mode: the most items in {@link BalanceMode#COUNT} mode, the
 * most total weight in {@link BalanceMode#WEIGHTED} and {@link BalanceMode#LOAD} mode; {@link #UNLIMITED} means no
 * limit. CPU and memory utilisation are fractions from 0 to 1 (the worker's state report in seed 001); they only
 * break ties between equally loaded workers, through the DRS score ({@link DrsWeights}). An offline worker receives nothing, and the
 * items it holds are moved.
 *
 * @param id the worker's id (seed 001: its URL), unique among the workers
 * @param capacity at least 0; {@link #UNLIMITED} for no limit
 * @param cpu CPU utilisation, 0..1
 * @param memory memory utilisation, 0..1
 * @param online whether the worker may hold items
 */
public record Worker(String id, long capacity, double cpu, double memory, boolean online) {

    /** The capacity of a worker without a limit. */
    public static final long UNLIMITED = Long.MAX_VALUE;

    public Worker {
        Objects.requireNonNull(id, "id");
        if (id.isEmpty()) {
            throw new IllegalArgumentException("worker id must not be empty");
        }
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity of worker '" + id + "' must be at least 0, got " + capacity);
        }
        requireFraction(id, "cpu", cpu);
        requireFraction(id, "memory", memory);
    }

    private static void requireFraction(String id, String field, double value) {
        if (!(value >= 0 && value <= 1)) {
            throw new IllegalArgumentException(field + " of worker '" + id + "' must be within 0..1, got " + value);
        }
    }

    /** An online worker with unlimited capacity and zero CPU and memory utilisation. */
    public static Worker online(String id) {
        return new Worker(id, UNLIMITED, 0, 0, true);
    }

    /** This worker with another capacity. */
    public Worker withCapacity(long newCapacity) {
        return new Worker(id, newCapacity, cpu, memory, online);
    }

    /** This worker with other CPU and memory utilisation. */
    public Worker withUsage(double newCpu, double newMemory) {
        return new Worker(id, capacity, newCpu, newMemory, online);
    }

    /** This worker, offline: it receives nothing and its items move. */
    public Worker offline() {
        return new Worker(id, capacity, cpu, memory, false);
    }

    /** This worker, online. */
    public Worker asOnline() {
        return new Worker(id, capacity, cpu, memory, true);
    }
}

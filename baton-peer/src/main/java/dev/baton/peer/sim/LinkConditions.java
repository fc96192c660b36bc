package dev.baton.peer.sim;

import java.time.Duration;
import java.util.Objects;

/**
 * How one direction of a simulated link behaves. Each message draws a delay uniformly from
 * {@code [minDelay, maxDelay]}, so messages overtake each other unless {@link #fifo()}; it is lost with
 * {@link #lossProbability()} and, if not lost, delivered twice (each copy with its own delay) with
 * {@link #duplicationProbability()}.
 *
 * @param minDelay shortest delay, zero or more
 * @param maxDelay longest delay, at least {@code minDelay}
 * @param lossProbability chance a message is lost, 0 to 1
 * @param duplicationProbability chance a message that is not lost arrives twice, 0 to 1
 * @param fifo if true, messages on this link arrive in the order they were sent (a later message waits for an earlier
 *     one's delivery time), like one TCP connection
 */
public record LinkConditions(
        Duration minDelay, Duration maxDelay, double lossProbability, double duplicationProbability, boolean fifo) {

    /** Validates; every message names the field. */
    public LinkConditions {
        Objects.requireNonNull(minDelay, "minDelay");
        Objects.requireNonNull(maxDelay, "maxDelay");
        if (minDelay.isNegative()) {
            throw new IllegalArgumentException("minDelay must not be negative, was " + minDelay);
        }
        if (maxDelay.compareTo(minDelay) < 0) {
            throw new IllegalArgumentException("maxDelay must be at least minDelay (" + minDelay + "), was " + maxDelay);
        }
        if (!(lossProbability >= 0 && lossProbability <= 1)) {
            throw new IllegalArgumentException("lossProbability must be within 0..1, was " + lossProbability);
        }
        if (!(duplicationProbability >= 0 && duplicationProbability <= 1)) {
            throw new IllegalArgumentException("duplicationProbability must be within 0..1, was " + duplicationProbability);
        }
    }

    /** Delivered at once, in order, never lost or duplicated. */
    public static LinkConditions instant() {
        return new LinkConditions(Duration.ZERO, Duration.ZERO, 0, 0, true);
    }

    /** Delivered after a delay in {@code [min, max]} (so possibly reordered), never lost or duplicated. */
    public static LinkConditions delayed(Duration min, Duration max) {
        return new LinkConditions(min, max, 0, 0, false);
    }

    /** The network's default: 1 to 10 ms, reordering possible, no loss, no duplication. */
    public static LinkConditions defaults() {
        return delayed(Duration.ofMillis(1), Duration.ofMillis(10));
    }

    public LinkConditions withDelay(Duration min, Duration max) {
        return new LinkConditions(min, max, lossProbability, duplicationProbability, fifo);
    }

    public LinkConditions withLoss(double probability) {
        return new LinkConditions(minDelay, maxDelay, probability, duplicationProbability, fifo);
    }

    public LinkConditions withDuplication(double probability) {
        return new LinkConditions(minDelay, maxDelay, lossProbability, probability, fifo);
    }

    public LinkConditions withFifo(boolean inOrder) {
        return new LinkConditions(minDelay, maxDelay, lossProbability, duplicationProbability, inOrder);
    }
}

package dev.baton.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.ElectionEvent;
import dev.baton.core.Leadership;
import dev.baton.core.time.Clock;

/**
 * {@code --chaos-hooks}: the real-clock stamps an election event's line gets, for the fault harness's history.
 *
 * <ul>
 *   <li>{@code mono}: the real {@link System#nanoTime()} when the event was dispatched. The caller takes it in a
 *       listener registered with a direct executor, which the election's dispatcher runs synchronously on the thread
 *       that emits the event, so it is the moment of the event, not of printing.</li>
 *   <li>{@code since}, on {@code leadership-acquired}: a lower bound, in real {@link System#nanoTime()}, on when the
 *       leadership could have been granted, so that a checker can order acquisitions across nodes. On a store
 *       backend it is when the acquire request was sent, recovered exactly from the leadership's local deadline
 *       ({@code deadline = sent + leaseTtl x (1 - maxClockDrift) - safetyMargin}, {@code ElectionConfig.localValidity()});
 *       on {@code bully} when the leader-record write that claimed the term was sent ({@code deadline = sent +
 *       leadershipValidity}). On {@code peer} the protocol does not expose when the winning formal proposal was sent,
 *       so it is the {@code mono} of this node's latest {@code election-started} (the round the proposal belongs to
 *       opened before it was sent), or of its previous line when there was none.</li>
 * </ul>
 *
 * <p>The deadline is read while the event is dispatched, before the election could renew (a renewal is scheduled only
 * after the event was emitted, on the same thread), so it is still the acquiring request's. A node on
 * {@code --clock-rate} has its readings turned back into real time ({@link RateClock#toReal(Clock, long)}). Calls come
 * one at a time, in event order.
 */
final class ChaosStamps {

    private final BackendSpec backend;
    private final Clock clock;
    /** The previous line's {@code mono}; before the first, when the stamps were made (before the election started). */
    private long lastMono = System.nanoTime();
    private long roundStartedMono = Long.MIN_VALUE;

    ChaosStamps(BackendSpec backend, Clock clock) {
        this.backend = backend;
        this.clock = clock;
    }

    /** Adds {@code mono} (and on {@code leadership-acquired}, {@code since}) to {@code line}, the line of {@code event}. */
    synchronized ObjectNode stamp(ElectionEvent event, ObjectNode line, long mono) {
        EventJson.stamp(line, "mono", mono);
        if (event instanceof ElectionEvent.LeadershipAcquired acquired) {
            EventJson.stamp(line, "since", Math.min(mono, since(acquired.leadership())));
        } else if (event instanceof ElectionEvent.ElectionStarted) {
            roundStartedMono = mono;
        }
        lastMono = mono;
        return line;
    }

    private long since(Leadership leadership) {
        if (backend instanceof BackendSpec.Store store) {
            return real(leadership.deadlineNanos() - store.config().localValidity().toNanos());
        }
        if (backend instanceof BackendSpec.Bully bully) {
            return real(leadership.deadlineNanos() - bully.config().leadershipValidity().toNanos());
        }
        return roundStartedMono != Long.MIN_VALUE ? roundStartedMono : lastMono;
    }

    private long real(long nodeNanos) {
        return RateClock.toReal(clock, nodeNanos);
    }
}

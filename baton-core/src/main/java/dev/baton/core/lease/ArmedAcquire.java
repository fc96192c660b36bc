package dev.baton.core.lease;

import java.util.concurrent.atomic.AtomicReference;

/**
 * A waiting follower's next acquire, made ready in advance so that the store's notice thread can send it the moment
 * a release is announced, instead of handing the notice to the election's scheduler first and sending from there. On
 * Redis that saves a thread wake-up on the handover path, and the acquire leaves from the thread that read the notice.
 *
 * <p>{@link LeaseDriver} arms it on its scheduler when its {@link LeaseMachine} asks (while the machine follows and
 * waits: no acquire in flight, not holding off after a step-down, no release jitter) and disarms it whenever the
 * machine says so. The notice thread may {@link #fire} it once; from then until the driver {@link #takeOver takes the
 * fired acquire over} (a task queued before the acquire is sent), it counts as an acquire in flight and cannot be
 * armed or disarmed. Sending one acquire more than the machine would have is never unsafe: the store decides
 * atomically, and a grant the machine no longer wants is handed back as for any late acquire.
 */
final class ArmedAcquire {

    /**
     * What the acquire needs, captured on the scheduler when it was armed.
     *
     * @param call       the call id its reply will name; the machine takes it as its acquire in flight when fired
     * @param minTerm    the lowest released term worth contending for (older notices are stale)
     * @param session    the store session to bind the lease to, or null for a lease with a TTL of its own
     */
    record Shot(long call, long minTerm, SessionKeeper.Session session) {
    }

    /** The marker of a shot fired but not yet taken over by the machine. */
    private static final Shot FIRED = new Shot(Long.MIN_VALUE, Long.MAX_VALUE, null);

    private final AtomicReference<Shot> shot = new AtomicReference<>();

    /** Arms with {@code next}, replacing an armed shot; does nothing while a fired one waits to be taken over. */
    void arm(Shot next) {
        shot.getAndUpdate(current -> current == FIRED ? FIRED : next);
    }

    /** Disarms; does nothing while a fired shot waits to be taken over. */
    void disarm() {
        shot.getAndUpdate(current -> current == FIRED ? FIRED : null);
    }

    /**
     * For the machine's own attempt, in one atomic step: disarms and returns true, or returns false if a shot was fired
     * and not yet taken over (its acquire is in flight, so the attempt must not send another). Checking
     * {@link #fired()} and then calling {@link #disarm()} would leave a gap in which the notice thread could fire, and
     * one attempt would send two acquires.
     */
    boolean disarmForAttempt() {
        return shot.getAndUpdate(current -> current == FIRED ? FIRED : null) != FIRED;
    }

    /** True while armed and not fired. */
    boolean armed() {
        Shot current = shot.get();
        return current != null && current != FIRED;
    }

    /** True from {@link #fire} until {@link #takeOver}: an acquire the machine has not yet heard of is in flight. */
    boolean fired() {
        return shot.get() == FIRED;
    }

    /**
     * Claims the armed shot for a release of {@code releasedTerm}, from any thread: returns it if armed and the
     * release is not older than the shot's {@code minTerm}, and only to one caller; null otherwise.
     */
    Shot fire(long releasedTerm) {
        Shot current = shot.get();
        if (current == null || current == FIRED || releasedTerm < current.minTerm()) {
            return null;
        }
        return shot.compareAndSet(current, FIRED) ? current : null;
    }

    /** On the scheduler: the fired acquire is now tracked by the machine as in flight. */
    void takeOver() {
        shot.compareAndSet(FIRED, null);
    }
}

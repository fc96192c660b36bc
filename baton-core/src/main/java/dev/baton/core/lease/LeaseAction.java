package dev.baton.core.lease;

import dev.baton.core.ElectionEvent;
import dev.baton.core.LeaderInfo;
import dev.baton.core.NodeState;
import dev.baton.core.spi.LeaseDeadline;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

/**
 * What a {@link LeaseMachine} step asks for, in the order it must be done: store calls (each with the id its reply
 * will name), events for the listeners, the snapshot other threads read, and the few things the driver does on its
 * own threads (the armed acquire, the release sent from the listeners' thread). {@link LeaseDriver} performs them.
 */
sealed interface LeaseAction {

    // ------------------------------------------------------------------ store calls

    /** Watch the group's lease for push notices (once, at start). */
    record Watch() implements LeaseAction {
    }

    /**
     * Ask for the lease, bound to {@code session} (null: with a TTL of its own), as this node is now; unless an armed
     * acquire was fired meanwhile, in which case the driver answers {@link LeaseInput.AcquireNotSent}.
     */
    record Acquire(long call, SessionKeeper.Session session) implements LeaseAction {
    }

    /** Renew the lease of {@code term}, waiting at most {@code timeout}. */
    record Renew(long call, long term, Duration timeout) implements LeaseAction {
    }

    /** Read the lease as it stands. */
    record Read(long call) implements LeaseAction {
    }

    /**
     * Release the lease of {@code term} (bound to {@code session}, or of its own if null) now. With a {@code done}
     * future the reply comes back as {@link LeaseInput.ReleaseReplied}; without, nothing waits for it.
     */
    record Release(long term, SessionKeeper.Session session, CompletableFuture<Void> done) implements LeaseAction {
    }

    /**
     * Tell the listeners {@code lost} and release the lease of {@code term} once they have all returned from it, or at
     * {@code fallbackAt} (the ended leadership's deadline, after which the lease is no longer ours to protect) if they
     * have not. The driver sends the release from the thread that delivered the event last.
     */
    record ReleaseAfterListeners(ElectionEvent.LeadershipLost lost, long term, SessionKeeper.Session session,
            long fallbackAt, CompletableFuture<Void> done) implements LeaseAction {
    }

    /**
     * Once {@code released} completes: stop watching, remove this process's registry entry if the election had
     * started, then run {@code onClosed}.
     */
    record TearDown(CompletableFuture<Void> released, boolean started, Runnable onClosed) implements LeaseAction {
    }

    // ------------------------------------------------------------------ the armed acquire

    /** Make {@code shot} the acquire the notice thread sends on a release notice. */
    record Arm(ArmedAcquire.Shot shot) implements LeaseAction {
    }

    /** No acquire is armed any more. */
    record Disarm() implements LeaseAction {
    }

    /** Ask the session keeper to say when {@code session} (holding the group) ends; it has {@code remaining} left. */
    record AwaitHolderSession(String session, Duration remaining) implements LeaseAction {
    }

    // ------------------------------------------------------------------ leadership and what others read

    /** Lead {@code term} until {@code deadline} (the session's, if bound to {@code session}): publish the leadership. */
    record Lead(long term, LeaseDeadline deadline, SessionKeeper.Session session) implements LeaseAction {
    }

    /** Tell the listeners {@code LeadershipAcquired} of the leadership just published, stamped {@code at}. */
    record AnnounceLead(Instant at) implements LeaseAction {
    }

    /** No leadership any more: publish none. */
    record Unlead() implements LeaseAction {
    }

    /** Move a leadership's own deadline (not a session's) to {@code nanos}. */
    record Extend(LeaseDeadline deadline, long nanos) implements LeaseAction {
    }

    record PublishState(NodeState state) implements LeaseAction {
    }

    record PublishLeader(LeaderInfo leader) implements LeaseAction {
    }

    record Emit(ElectionEvent event) implements LeaseAction {
    }

    /** The first round resolved, with this node leading or not ({@code whenElected}). */
    record RoundResolved(boolean leading) implements LeaseAction {
    }

    /** The election started: its store silence is measured from now. */
    record Started() implements LeaseAction {
    }

    /** The election closed: a first round still awaited will never resolve. */
    record Closed() implements LeaseAction {
    }

    /** A store call of {@code kind} failed ({@code cause} set), or a leadership ended for want of one. */
    record ReportError(String kind, String what, Throwable cause) implements LeaseAction {
    }

    /** The last failure was followed by a success. */
    record ClearProblem() implements LeaseAction {
    }

    /** Complete a caller's future. */
    record Complete(CompletableFuture<Void> done) implements LeaseAction {
    }

    // ------------------------------------------------------------------ membership and metrics

    /** Tell the group's membership what changed. */
    record Members(MemberChange change, SessionKeeper.Session session) implements LeaseAction {
    }

    enum MemberChange { START, LEADING, NOT_LEADING, SESSION_OPENED, SESSION_LOST }

    /** The leadership of {@code term} is valid until {@code nanos}: reported before the deadline moves there. */
    record ValidUntil(long term, long nanos) implements LeaseAction {
    }

    /** A renewal succeeded {@code latencyNanos} after it was sent, with {@code marginNanos} left then. */
    record Renewed(long latencyNanos, long marginNanos) implements LeaseAction {
    }
}

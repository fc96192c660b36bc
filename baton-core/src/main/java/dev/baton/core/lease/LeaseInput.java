package dev.baton.core.lease;

import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.Lease;
import dev.baton.core.store.LeaseNotice;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Everything that can happen to a lease election, as {@link LeaseMachine#step} takes it: the user's commands, the
 * store's replies (each naming the call it answers), push notices, the session keeper's news and the passing of time.
 * The machine's answer to each is a {@link LeaseMachine.Step}: the actions to perform and when to wake it next.
 */
sealed interface LeaseInput {

    /** The user started the election. */
    record Start() implements LeaseInput {
    }

    /** The wake-up time the last step asked for has come (or passed: the machine checks what is due). */
    record Tick() implements LeaseInput {
    }

    /** Give up leadership if held, and hold off contending for a check interval; {@code done} when released. */
    record StepDown(boolean fromListener, CompletableFuture<Void> done) implements LeaseInput {
    }

    /** Close for good; {@code onClosed} runs once the release went out and the registry entry is gone. */
    record Close(boolean fromListener, Runnable onClosed) implements LeaseInput {
    }

    /**
     * The reply to acquire call {@code call}, sent at {@code sentAt} bound to {@code session} (null: a lease with a TTL
     * of its own); exactly one of {@code result} and {@code error} is set.
     */
    record AcquireReplied(long call, long sentAt, SessionKeeper.Session session, AcquireResult result,
            Throwable error) implements LeaseInput {
    }

    /** A reply to an acquire that came after the call had timed out: a grant in it is nobody's to use. */
    record AcquireLate(SessionKeeper.Session session, AcquireResult result) implements LeaseInput {
    }

    /**
     * Acquire {@code call} was not sent: an armed acquire had already been fired on a release notice and is in flight
     * (its {@link AcquireFired} is on the way).
     */
    record AcquireNotSent(long call) implements LeaseInput {
    }

    /** The store's notice thread fired the armed acquire {@code call} on {@code notice}; its reply follows. */
    record AcquireFired(LeaseNotice notice, long call) implements LeaseInput {
    }

    /** The reply to renewal {@code call}: whether the lease is still this node's, or the error. */
    record RenewReplied(long call, Boolean renewed, Throwable error) implements LeaseInput {
    }

    /** The reply to read {@code call}, by which a leader bound to a session checks a notice of a newer term. */
    record ReadReplied(long call, Optional<Lease> lease, Throwable error) implements LeaseInput {
    }

    /** A release of {@code term} was answered ({@code error} set if it failed); {@code done} waits for it. */
    record ReleaseReplied(long term, Throwable error, CompletableFuture<Void> done) implements LeaseInput {
    }

    /** A push notice about the group's lease, handed over from the store's thread. */
    record Notice(LeaseNotice notice) implements LeaseInput {
    }

    /** The process's store session is open: leases can be bound to it. */
    record SessionOpened(SessionKeeper.Session session) implements LeaseInput {
    }

    /** The session ended for {@code reason}: a leadership bound to it ended with it. */
    record SessionLost(SessionKeeper.Session session, LossReason reason) implements LeaseInput {
    }

    /** The other process's session that held the group, which this follower waited for, has ended. */
    record HolderSessionEnded(String session) implements LeaseInput {
    }
}

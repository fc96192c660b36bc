package dev.baton.spring;

import dev.baton.core.Election;
import dev.baton.core.ElectionEvent.LossReason;
import org.springframework.context.ApplicationEvent;

/**
 * This node stopped leading {@link #term()} (Spring Integration's {@code OnRevokedEvent}): stop acting as leader at
 * once.
 *
 * <p>Published on the election's event thread, exactly once per term. On a graceful release (the application shuts
 * down, or {@code /actuator/baton} releases) the lease is handed on only after every listener has returned from this
 * event, so work stopped in a listener never overlaps with the successor's. When the local deadline passes
 * ({@link LossReason#EXPIRED_LOCALLY}) the event comes at that deadline, which ends a safety margin before the
 * store can give the lease to another node: stop quickly.
 */
public class BatonLeadershipRevokedEvent extends ApplicationEvent {

    private static final long serialVersionUID = 1L;

    private final long term;
    private final LossReason reason;

    public BatonLeadershipRevokedEvent(Election election, long term, LossReason reason) {
        super(election);
        this.term = term;
        this.reason = reason;
    }

    /** The election that revoked it. */
    public Election election() {
        return (Election) getSource();
    }

    /** The term that ended. */
    public long term() {
        return term;
    }

    /** Why: released, taken by another node, or expired locally. */
    public LossReason reason() {
        return reason;
    }

    /** The group this node no longer leads. */
    public String group() {
        return election().group();
    }
}

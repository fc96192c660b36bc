package dev.baton.spring;

import dev.baton.core.Election;
import dev.baton.core.Leadership;
import org.springframework.context.ApplicationEvent;

/**
 * This node became the group's leader (Spring Integration's {@code OnGrantedEvent}), with the term to fence its
 * writes with.
 *
 * <p>Published on the election's event thread, in order with {@link BatonLeadershipRevokedEvent}. By the time an
 * {@code @EventListener} runs, the leadership may already be lost again: check {@link Leadership#isValid()} before
 * acting, and pass {@link #term()} with every write (see {@code JdbcFence}, {@code FencedRegister}).
 */
public class BatonLeadershipGrantedEvent extends ApplicationEvent {

    private static final long serialVersionUID = 1L;

    private final transient Leadership leadership;

    public BatonLeadershipGrantedEvent(Election election, Leadership leadership) {
        super(election);
        this.leadership = leadership;
    }

    /** The election that granted it. */
    public Election election() {
        return (Election) getSource();
    }

    /** The leadership: its term and its local deadline. */
    public Leadership leadership() {
        return leadership;
    }

    /** The fencing token of this leadership. */
    public long term() {
        return leadership.term();
    }

    /** The group this node now leads. */
    public String group() {
        return leadership.group();
    }
}

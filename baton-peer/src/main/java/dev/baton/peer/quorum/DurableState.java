package dev.baton.peer.quorum;

import java.util.Optional;

/**
 * Where a node keeps its {@link AcceptorState} across crashes. The election writes the state <em>before</em> it sends
 * the vote or acknowledgement that depends on it, so {@link #store} must not return before the state would survive a
 * crash of the process (and, for {@link FileDurableState}, of the machine).
 *
 * <p>Implementations: {@link FileDurableState} (a preallocated vote log under the node's data directory, one write
 * and one {@code fdatasync} per save) and {@link InMemoryDurableState} (for tests and for nodes without a data directory, which then restart
 * as if new and recover before they vote). The in-memory state is written on the election's scheduler thread; any
 * other implementation on a writer thread of the node's own, one call at a time, while the scheduler holds back every
 * message that depends on the write until {@link #store} returns. {@link #load} is called once, when the node is
 * built.
 */
public interface DurableState {

    /** The last stored state, or empty if nothing was ever stored here (a first start, or the state was lost). */
    Optional<AcceptorState> load();

    /**
     * Stores {@code state} durably.
     *
     * @throws java.io.UncheckedIOException if it could not be stored; the election then does not send what depended on
     *     it
     */
    void store(AcceptorState state);

    /**
     * Releases what the state holds open between stores (a file), once the node's last store has returned. A later
     * {@link #store} must work again: a node restarted in the same process may be given the same state. Does nothing
     * by default.
     */
    default void close() {
    }
}

package dev.baton.peer.quorum;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link DurableState} in memory: it survives as long as this object does. In the simulation a node that "crashes
 * with its state" is rebuilt on the same object and one that "crashes without its state" on a new one. A real node
 * without a data directory uses one too, and so restarts as a node without saved state (which recovers before voting).
 */
public final class InMemoryDurableState implements DurableState {

    private final AtomicReference<AcceptorState> state = new AtomicReference<>();

    @Override
    public Optional<AcceptorState> load() {
        return Optional.ofNullable(state.get());
    }

    @Override
    public void store(AcceptorState value) {
        state.set(value);
    }

    @Override
    public String toString() {
        return "InMemoryDurableState" + load().map(s -> "[" + s + "]").orElse("[empty]");
    }
}

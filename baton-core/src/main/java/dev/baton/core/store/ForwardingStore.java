package dev.baton.core.store;

import java.util.Objects;
import java.util.Optional;

/**
 * A {@link CoordinationStore} that hands every role to another store: the base of wrappers that change one role and
 * leave the others alone. A subclass overrides the accessor of the role it changes, e.g. {@link #leases()} to trace
 * lease calls, and wraps {@code delegate().leases()} there.
 *
 * <p>{@link #close()} closes the delegate; override it if the wrapper shares a store it does not own.
 */
public abstract class ForwardingStore implements CoordinationStore {

    private final CoordinationStore delegate;

    protected ForwardingStore(CoordinationStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The store every role not overridden comes from. */
    protected final CoordinationStore delegate() {
        return delegate;
    }

    @Override
    public LeaseStore leases() {
        return delegate.leases();
    }

    @Override
    public RegistryStore registry() {
        return delegate.registry();
    }

    @Override
    public FencedStore registers() {
        return delegate.registers();
    }

    @Override
    public FencedMapStore maps() {
        return delegate.maps();
    }

    @Override
    public EventLogStore events() {
        return delegate.events();
    }

    @Override
    public MessageBus bus() {
        return delegate.bus();
    }

    @Override
    public LeaderRecordStore leaderRecords() {
        return delegate.leaderRecords();
    }

    @Override
    public Optional<SessionStore> sessions() {
        return delegate.sessions();
    }

    @Override
    public String describe() {
        return delegate.describe();
    }

    @Override
    public void close() {
        delegate.close();
    }
}

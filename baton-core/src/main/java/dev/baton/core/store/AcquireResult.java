package dev.baton.core.store;

/** The answer to {@link LeaseStore#acquire}: the lease with a new term, or the lease someone else holds. */
public sealed interface AcquireResult {

    /** The caller now holds the lease under {@code term}, a term no one was granted before. */
    record Granted(long term) implements AcquireResult {
    }

    /** Another node holds an unexpired lease. */
    record Denied(Lease current) implements AcquireResult {
    }
}

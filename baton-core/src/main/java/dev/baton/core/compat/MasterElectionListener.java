package dev.baton.core.compat;

/**
 * Seed 000's {@code MasterElectionEvents}, one method per event; implement the ones you need. Called on the
 * election's event thread, in order (see {@link dev.baton.core.ElectionListener} for the full contract).
 */
public interface MasterElectionListener {

    /** {@code master-acquired}: this process became master. Emitted as soon as the lock is acquired. */
    default void onMasterAcquired() {
    }

    /**
     * {@code master-lost}: this process is no longer master. Emitted as soon as a renewal fails, and at the latest at
     * the local deadline, before the lock could pass to another process.
     */
    default void onMasterLost() {
    }

    /** {@code election-started}: an election round began. */
    default void onElectionStarted() {
    }

    /** {@code election-completed}: a round resolved; {@code isMaster} tells the outcome. */
    default void onElectionCompleted(boolean isMaster) {
    }

    /** {@code slave-registered}: a new slave joined. Emitted on the master only. */
    default void onSlaveRegistered(SlaveNode slave) {
    }

    /** {@code slave-removed}: a slave left or its registration expired. Emitted on the master only. */
    default void onSlaveRemoved(String nodeId) {
    }

    /** {@code error}: a coordination error; the election keeps running and retries on its own. */
    default void onError(Throwable error) {
    }
}

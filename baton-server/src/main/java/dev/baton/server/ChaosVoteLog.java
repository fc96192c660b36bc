package dev.baton.server;

import dev.baton.peer.quorum.AcceptorState;
import dev.baton.peer.quorum.DurableState;
import dev.baton.peer.quorum.FileDurableState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@code quorum} node's vote log under the fault harness: the node's own {@link DurableState} (the file under its
 * {@code --data-dir}), with the faults of {@link VoteLogFaults} armed from stdin. Only with {@code --chaos-hooks}.
 * Each fault strikes one save, the next one after it is armed.
 */
final class ChaosVoteLog implements DurableState, VoteLogFaults {

    private final FileDurableState log;
    // Guarded by this.
    private boolean failNextFsync;
    private boolean loseNextWrite;

    ChaosVoteLog(FileDurableState log) {
        this.log = Objects.requireNonNull(log, "log");
    }

    @Override
    public Optional<AcceptorState> load() {
        return log.load();
    }

    @Override
    public void store(AcceptorState state) {
        boolean fail;
        synchronized (this) {
            if (loseNextWrite) {
                loseNextWrite = false;
                return;
            }
            fail = failNextFsync;
            failNextFsync = false;
        }
        log.store(state);
        if (fail) {
            throw new UncheckedIOException("cannot store the election state in " + log.file() + " (a fault the"
                    + " harness injected)", new IOException("Input/output error on fdatasync"));
        }
    }

    @Override
    public synchronized void failNextFsync() {
        failNextFsync = true;
    }

    @Override
    public synchronized void loseNextWrite() {
        loseNextWrite = true;
    }

    @Override
    public synchronized void withdraw() {
        failNextFsync = false;
        loseNextWrite = false;
    }

    @Override
    public void close() {
        log.close();
    }

    @Override
    public String toString() {
        return log.toString();
    }
}

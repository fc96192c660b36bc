package dev.baton.server;

/**
 * The faults the fault harness can put on a {@code quorum} node's vote log ({@code --chaos-hooks} with a
 * {@code --data-dir}, the stdin commands {@code vote-log fail-next-fsync} and {@code vote-log lose-next-write}, withdrawn
 * by {@code heal});
 * {@link ChaosVoteLog} implements them. Thread-safe.
 */
interface VoteLogFaults {

    /**
     * The next save fails as if its {@code fdatasync} had returned an I/O error (EIO). The record is written and
     * forced all the same, so after a restart the node may find it: a failed fsync tells nothing of what reached the
     * disk. The node does not send what depended on the save, and stops.
     */
    void failNextFsync();

    /**
     * The next save returns as durable without being written, as on a disk that acknowledges writes from a volatile
     * cache: if the process is killed before the save after it (which writes the whole state), the save is lost and
     * the older record is read back intact. This breaks the assumption the election's safety rests on (an honest
     * fsync).
     */
    void loseNextWrite();

    /** Withdraws the faults armed that have not struck yet ({@code heal}). */
    void withdraw();
}

package dev.baton.peer.bully;

import dev.baton.core.store.LeaderRecord;
import dev.baton.core.store.LeaderRecordWrite;

/**
 * The compare-and-set rule of {@link dev.baton.core.store.LeaderRecordStore#writeLeader}, for the stores that decide
 * it in this process: a record is stored if the group has none, if its term is higher than the stored one, or if it
 * is the stored leader refreshing its record in the same term; anything else is refused with the stored record.
 */
final class LeaderRecordRule {

    private LeaderRecordRule() {
    }

    /** Decides a write against the stored record ({@code null}: none). */
    static LeaderRecordWrite decide(LeaderRecord stored, LeaderRecord proposed) {
        boolean accepted = stored == null || proposed.term() > stored.term()
                || (proposed.term() == stored.term() && proposed.leaderId().equals(stored.leaderId()));
        return new LeaderRecordWrite(accepted, accepted ? proposed : stored);
    }
}

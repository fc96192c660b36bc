package dev.baton.peer.replica;

import dev.baton.core.store.FencedValue;
import dev.baton.peer.replica.ReplicaMessage.Push;
import dev.baton.peer.replica.ReplicaMessage.PushAck;
import dev.baton.peer.replica.ReplicaMessage.RecoveryAnswer;
import dev.baton.peer.replica.ReplicaMessage.Snapshot;
import dev.baton.peer.replica.ReplicaMessage.Sync;
import dev.baton.peer.replica.ReplicaMessage.Write;
import dev.baton.peer.replica.ReplicaMessage.WriteAck;
import dev.baton.peer.transport.PeerAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One member's copy of the group's maps and the rules it keeps, whoever leads: the newest term it has seen (it refuses
 * anything older), the term whose leader's state it holds ({@code syncedTerm}) and how many of that leader's writes it
 * holds, without a gap ({@code appliedSeq}). A pure state machine: messages in, answers out; not thread-safe (the
 * store runs it on one scheduler).
 *
 * <p>A replica starts empty (it lives in memory), and cannot tell the group's first start from a restart that lost
 * writes it had acknowledged and terms it had promised to refuse. So it starts {@link Standing#RECOVERING}: until it
 * holds a state again its catch-up answers are no votes, and before it takes a state it learns from the others the
 * newest term it may have promised (its barrier), so that a deposed leader cannot hand it an old one.
 */
final class ReplicaState {

    /** Whether a replica's state can be counted on. */
    enum Standing {
        /** Started empty: asking the others for the newest term they have seen; takes no state from anyone yet. */
        RECOVERING,
        /** Knows its barrier (now its newest term); waits for a leader of at least that term to push it a state. */
        AWAITING_STATE,
        /** Holds a state a leader gave it (or formed itself, leading): every write it acknowledged since it started. */
        HOLDING
    }

    /** map name to key to entry; tombstones included. */
    private final Map<String, TreeMap<String, ReplicaEntry>> maps = new HashMap<>();
    private long newestTerm;
    private long syncedTerm;
    /** The leader whose state of {@code syncedTerm} this replica holds: one term's state comes from one leader. */
    private PeerAddress syncedLeader;
    private long appliedSeq;
    private Standing standing = Standing.RECOVERING;
    /** While recovering: the newest term each member that answered has seen. */
    private final Map<PeerAddress, Long> recoveryAnswers = new HashMap<>();

    Standing standing() {
        return standing;
    }

    /** Whether this replica holds a state a leader gave it since it started: its catch-up answer is a vote. */
    boolean holdsState() {
        return standing == Standing.HOLDING;
    }

    /** Whether {@code member} has answered this replica's recovery query. */
    boolean answeredRecovery(PeerAddress member) {
        return recoveryAnswers.containsKey(member);
    }

    /** Another member recovers: the newest term seen here. */
    RecoveryAnswer onRecoveryQuery() {
        return new RecoveryAnswer(newestTerm);
    }

    /** An answer to this replica's recovery query; recovery ends once {@code needed} members have answered. */
    void onRecoveryAnswer(PeerAddress from, RecoveryAnswer answer, int needed) {
        if (standing == Standing.RECOVERING) {
            recoveryAnswers.put(from, answer.newestTerm());
            finishRecovery(needed);
        }
    }

    /**
     * Ends recovery if {@code needed} other members have answered: the newest term among their answers becomes this
     * replica's newest term (its barrier). A term's catch-up counted this replica with at least M - 1 others, and
     * its leader's state was acknowledged by as many; any N - M + 1 other members include one of them, so no term
     * this replica promised before it lost its state is newer than the barrier, as long as members lose their state
     * one at a time.
     *
     * @return whether the replica is past recovering
     */
    boolean finishRecovery(int needed) {
        if (standing == Standing.RECOVERING && recoveryAnswers.size() >= needed) {
            for (long seen : recoveryAnswers.values()) {
                newestTerm = Math.max(newestTerm, seen);
            }
            recoveryAnswers.clear();
            standing = Standing.AWAITING_STATE;
        }
        return standing != Standing.RECOVERING;
    }

    long newestTerm() {
        return newestTerm;
    }

    long syncedTerm() {
        return syncedTerm;
    }

    long appliedSeq() {
        return appliedSeq;
    }

    /** Raises the newest term seen; a replica never forgets it has seen a term. */
    void observe(long term) {
        newestTerm = Math.max(newestTerm, term);
    }

    /**
     * A new leader asks for the state: granted unless a newer term was seen (or this term's state already came from
     * another leader), and older terms are refused from now. The answer says whether it is a vote: whether this
     * replica holds a state.
     */
    Snapshot onSnapshotRequest(PeerAddress from, long term) {
        if (term < newestTerm || otherLeaderOf(term, from)) {
            return new Snapshot(term, false, newestTerm, holdsState(), List.of());
        }
        newestTerm = term;
        return new Snapshot(term, true, newestTerm, holdsState(), entries());
    }

    /**
     * The leader's whole state replaces this one's, unless this one already holds as much of the same term; {@code
     * null} (no answer, the leader pushes again) while recovering, when this replica cannot yet tell a deposed leader.
     */
    PushAck onPush(PeerAddress from, Push push) {
        if (standing == Standing.RECOVERING) {
            return null;
        }
        if (push.term() < newestTerm || otherLeaderOf(push.term(), from)) {
            return new PushAck(push.term(), push.upTo(), false, newestTerm);
        }
        newestTerm = push.term();
        if (syncedTerm != push.term() || appliedSeq < push.upTo()) {
            install(from, push.term(), push.upTo(), push.entries());
        }
        return new PushAck(push.term(), push.upTo(), true, newestTerm);
    }

    /** One write of a leader: applied only in order, after the leader's state of the same term was installed. */
    WriteAck onWrite(PeerAddress from, Write write) {
        long seq = write.entry().versionSeq();
        if (write.term() < newestTerm || otherLeaderOf(write.term(), from)) {
            return new WriteAck(write.term(), seq, false, false, newestTerm);
        }
        newestTerm = write.term();
        if (syncedTerm != write.term() || seq > appliedSeq + 1) {
            return new WriteAck(write.term(), seq, false, true, newestTerm);
        }
        if (seq == appliedSeq + 1) {
            put(write.entry());
            appliedSeq = seq;
        }
        return new WriteAck(write.term(), seq, true, false, newestTerm);
    }

    /**
     * Whether {@code term}'s state here came from another leader than {@code from}. A protocol that issues each term
     * once never lets it happen; a bully group whose nodes issue their own terms can, and then the first leader keeps
     * the term on this replica.
     */
    private boolean otherLeaderOf(long term, PeerAddress from) {
        return term == syncedTerm && syncedLeader != null && !syncedLeader.equals(from);
    }

    /** The leader's periodic check; {@code null} when this replica holds its state up to {@code upTo}. */
    WriteAck onSync(PeerAddress from, Sync sync) {
        if (sync.term() < newestTerm || otherLeaderOf(sync.term(), from)) {
            return new WriteAck(sync.term(), sync.upTo(), false, false, newestTerm);
        }
        newestTerm = sync.term();
        if (syncedTerm == sync.term() && appliedSeq >= sync.upTo()) {
            return null;
        }
        return new WriteAck(sync.term(), sync.upTo(), false, true, newestTerm);
    }

    /** Replaces the whole state with {@code leader}'s (its own, or a new leader's merged one). */
    void install(PeerAddress leader, long term, long upTo, Collection<ReplicaEntry> entries) {
        maps.clear();
        entries.forEach(this::put);
        syncedTerm = term;
        syncedLeader = leader;
        appliedSeq = upTo;
        newestTerm = Math.max(newestTerm, term);
        standing = Standing.HOLDING;
        recoveryAnswers.clear();
    }

    /** Applies the leader's own write locally; the caller numbered it {@code appliedSeq() + 1}. */
    void applyOwn(ReplicaEntry entry) {
        put(entry);
        appliedSeq = entry.versionSeq();
    }

    private void put(ReplicaEntry entry) {
        maps.computeIfAbsent(entry.map(), m -> new TreeMap<>()).put(entry.key(), entry);
    }

    /** Every entry, tombstones included. */
    List<ReplicaEntry> entries() {
        List<ReplicaEntry> all = new ArrayList<>();
        maps.values().forEach(m -> all.addAll(m.values()));
        return all;
    }

    /** The live value of {@code key}, if any. */
    Optional<FencedValue> get(String map, String key) {
        TreeMap<String, ReplicaEntry> entries = maps.get(map);
        ReplicaEntry entry = entries == null ? null : entries.get(key);
        return entry == null || entry.tombstone() ? Optional.empty() : Optional.of(value(entry));
    }

    /** The live entries of {@code map}, by key. */
    SortedMap<String, FencedValue> entries(String map) {
        SortedMap<String, FencedValue> live = new TreeMap<>();
        TreeMap<String, ReplicaEntry> entries = maps.get(map);
        if (entries != null) {
            entries.forEach((key, entry) -> {
                if (!entry.tombstone()) {
                    live.put(key, value(entry));
                }
            });
        }
        return live;
    }

    private static FencedValue value(ReplicaEntry entry) {
        return new FencedValue(entry.writerTerm(), entry.writer(), entry.value().clone());
    }

    /**
     * The state a new leader of {@code term} starts from: per key the entry with the newest version among the
     * snapshots, re-versioned {@code (term, 0)} so that it beats any late write of an older term a replica outside
     * the majority may still hold.
     */
    static List<ReplicaEntry> merge(long term, Collection<List<ReplicaEntry>> snapshots) {
        Map<String, Map<String, ReplicaEntry>> newest = new HashMap<>();
        for (List<ReplicaEntry> snapshot : snapshots) {
            for (ReplicaEntry entry : snapshot) {
                newest.computeIfAbsent(entry.map(), m -> new HashMap<>()).merge(entry.key(), entry,
                        (a, b) -> b.newerThan(a) ? b : a);
            }
        }
        List<ReplicaEntry> merged = new ArrayList<>();
        newest.values().forEach(m -> m.values().forEach(e -> merged.add(e.restamped(term, 0))));
        return merged;
    }
}

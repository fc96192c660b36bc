package dev.baton.peer.replica;

import dev.baton.core.store.FencedValue;
import dev.baton.peer.replica.ReplicaMessage.Push;
import dev.baton.peer.replica.ReplicaMessage.PushAck;
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
 */
final class ReplicaState {

    /** map name to key to entry; tombstones included. */
    private final Map<String, TreeMap<String, ReplicaEntry>> maps = new HashMap<>();
    private long newestTerm;
    private long syncedTerm;
    /** The leader whose state of {@code syncedTerm} this replica holds: one term's state comes from one leader. */
    private PeerAddress syncedLeader;
    private long appliedSeq;

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
     * another leader), and older terms are refused from now.
     */
    Snapshot onSnapshotRequest(PeerAddress from, long term) {
        if (term < newestTerm || otherLeaderOf(term, from)) {
            return new Snapshot(term, false, newestTerm, List.of());
        }
        newestTerm = term;
        return new Snapshot(term, true, newestTerm, entries());
    }

    /** The leader's whole state replaces this one's, unless this one already holds as much of the same term. */
    PushAck onPush(PeerAddress from, Push push) {
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

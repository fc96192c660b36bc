package dev.baton.peer.replica;

import dev.baton.core.store.FencedMapWrite;
import dev.baton.core.store.StoreException;
import dev.baton.core.store.StoreTimeoutException;
import dev.baton.peer.replica.ReplicaMessage.Push;
import dev.baton.peer.replica.ReplicaMessage.PushAck;
import dev.baton.peer.replica.ReplicaMessage.Snapshot;
import dev.baton.peer.replica.ReplicaMessage.SnapshotRequest;
import dev.baton.peer.replica.ReplicaMessage.Sync;
import dev.baton.peer.replica.ReplicaMessage.Write;
import dev.baton.peer.replica.ReplicaMessage.WriteAck;
import dev.baton.peer.transport.PeerAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * This member's leadership of one term, as the replicated maps see it: first it catches up (asks the members for
 * their state until a majority of members that hold one have answered, merges it per key by newest version, pushes
 * the merged state to a majority), then it numbers its writes, applies each locally, sends it to every replica and
 * reports it written once a majority holds it.
 *
 * <p>Why a majority suffices: a write is acknowledged only when a majority holds it, and a later leader gathers the
 * state of a majority that holds one before it acts; any two majorities share a member, that member still has the
 * write (a replica that restarted empty holds a state again only once a leader of a term at least as new as any it
 * knew pushed it the whole state, which has the write), and it refuses the older term's writes from the moment it
 * answered the newer leader, so every acknowledged write is in the state the next leader starts from. An empty
 * replica's answer is no vote, with one exception: once every member of the group has answered, no one else can hold
 * anything, and the leader starts from what the answers hold (at the group's first start, nothing). A pure state
 * machine: time comes in as {@code nowNanos}, messages go out through {@code send}; not thread-safe (the store runs it
 * on its scheduler).
 */
final class LeaderTerm {

    enum Phase { GATHERING, PUSHING, READY, ENDED }

    /** A write sent to the replicas and not yet held by a majority. */
    private static final class Pending {
        final ReplicaEntry entry;
        final boolean existed;
        final long sentNanos;
        final Set<PeerAddress> holders = new HashSet<>();
        final CompletableFuture<FencedMapWrite> result = new CompletableFuture<>();

        Pending(ReplicaEntry entry, boolean existed, long sentNanos) {
            this.entry = entry;
            this.existed = existed;
            this.sentNanos = sentNanos;
        }
    }

    private final long term;
    private final PeerAddress self;
    private final ReplicaState local;
    private final BiConsumer<PeerAddress, ReplicaMessage> send;
    private final long writeTimeoutNanos;
    private final Consumer<Runnable> later;
    /** Calls that came while catching up, in the order they came. */
    private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
    private final Map<PeerAddress, Snapshot> snapshots = new HashMap<>();
    /** Members known to hold this term's state: they acknowledged its catch-up push, or a later push or write. */
    private final Set<PeerAddress> pushed = new HashSet<>();
    private final TreeMap<Long, Pending> pending = new TreeMap<>();
    private final Map<PeerAddress, Long> lastPushNanos = new HashMap<>();
    private Set<PeerAddress> replicas = Set.of();
    private int majority = Integer.MAX_VALUE;
    private int size = Integer.MAX_VALUE;
    private Phase phase = Phase.GATHERING;
    private long refusedBy;
    private boolean conflicted;
    private boolean started;

    /**
     * @param later runs a task after the current one, in the order given (the store's scheduler): how calls that
     *              waited for the catch-up resume
     */
    LeaderTerm(long term, PeerAddress self, ReplicaState local, BiConsumer<PeerAddress, ReplicaMessage> send,
            long writeTimeoutNanos, Consumer<Runnable> later) {
        this.term = term;
        this.self = self;
        this.local = local;
        this.send = send;
        this.writeTimeoutNanos = writeTimeoutNanos;
        this.later = later;
    }

    /**
     * Runs {@code task} (through {@code later}) once the term has caught up or ended; tasks run in the order they
     * were given, so a caller's writes get their numbers in the order it made them.
     */
    void whenSettled(Runnable task) {
        if (phase == Phase.READY || phase == Phase.ENDED) {
            later.accept(task);
        } else {
            waiting.add(task);
        }
    }

    private void release() {
        while (!waiting.isEmpty()) {
            later.accept(waiting.poll());
        }
    }

    long term() {
        return term;
    }

    Phase phase() {
        return phase;
    }

    /** Whether a replica refused this term because another leader of the same term reached it first. */
    boolean conflicted() {
        return conflicted;
    }

    /** Whether {@link #start} was called. */
    boolean started() {
        return started;
    }

    /** Starts catching up: this member's own state counts as the first snapshot. */
    void start(Set<PeerAddress> members, int majorityOf, int sizeOf, long nowNanos) {
        started = true;
        view(members, majorityOf, sizeOf);
        Snapshot own = local.onSnapshotRequest(self, term);
        if (!own.granted()) {
            refused(own.newestTerm());
            return;
        }
        snapshots.put(self, own);
        askForSnapshots();
        maybeMerged();
    }

    /**
     * The members' store addresses, how many of them make a majority and how many members the group has, as they are
     * now.
     */
    void view(Set<PeerAddress> members, int majorityOf, int sizeOf) {
        this.replicas = Set.copyOf(members);
        this.majority = majorityOf;
        this.size = sizeOf;
    }

    /** Periodic: asks again whoever has not answered, and gives up on writes older than the write timeout. */
    void tick(long nowNanos) {
        switch (phase) {
            case GATHERING -> {
                askForSnapshots();
                maybeMerged();
            }
            case PUSHING -> {
                for (PeerAddress peer : others()) {
                    if (!pushed.contains(peer)) {
                        send.accept(peer, new Push(term, 0, local.entries()));
                    }
                }
                maybePushed();
            }
            case READY -> {
                for (Iterator<Pending> it = pending.values().iterator(); it.hasNext();) {
                    Pending p = it.next();
                    if (nowNanos - p.sentNanos >= writeTimeoutNanos) {
                        it.remove();
                        p.result.completeExceptionally(new StoreTimeoutException("write " + term + "."
                                + p.entry.versionSeq() + " of " + p.entry.map() + "/" + p.entry.key() + " reached "
                                + p.holders.size() + " of the " + majority + " members it needs"));
                    }
                }
                // A member that missed the oldest waiting write, or has not held this term's state yet (it was
                // down during the catch-up, or restarted empty), gets the whole state: so a member that will lead
                // next rarely has to rely on others for what the group acknowledged.
                Pending oldest = pending.isEmpty() ? null : pending.firstEntry().getValue();
                for (PeerAddress peer : others()) {
                    if (!pushed.contains(peer) || oldest != null && !oldest.holders.contains(peer)) {
                        pushTo(peer, nowNanos);
                    } else {
                        send.accept(peer, new Sync(term, local.appliedSeq()));
                    }
                }
            }
            case ENDED -> { }
        }
    }

    private void askForSnapshots() {
        for (PeerAddress peer : others()) {
            if (!snapshots.containsKey(peer)) {
                send.accept(peer, new SnapshotRequest(term));
            }
        }
    }

    private List<PeerAddress> others() {
        List<PeerAddress> others = new ArrayList<>();
        for (PeerAddress peer : replicas) {
            if (!peer.equals(self)) {
                others.add(peer);
            }
        }
        return others;
    }

    void onSnapshot(PeerAddress from, Snapshot snapshot) {
        if (snapshot.term() != term || phase == Phase.ENDED) {
            return;
        }
        if (!snapshot.granted()) {
            refused(snapshot.newestTerm());
            return;
        }
        if (phase == Phase.GATHERING) {
            // A member's answer with its state is kept should it answer again without one (it restarted since).
            snapshots.merge(from, snapshot, (before, now) -> before.holdsState() ? before : now);
            maybeMerged();
        }
    }

    /**
     * Merges once a majority of members that hold a state have answered, or every member of the group has: a member
     * that restarted empty may have acknowledged writes it no longer has, so its answer counts only toward the second.
     */
    private void maybeMerged() {
        if (phase != Phase.GATHERING) {
            return;
        }
        List<List<ReplicaEntry>> held = new ArrayList<>();
        int members = 0;
        for (Map.Entry<PeerAddress, Snapshot> answer : snapshots.entrySet()) {
            if (answer.getValue().holdsState()) {
                held.add(answer.getValue().entries());
            }
            if (replicas.contains(answer.getKey())) {
                members++;
            }
        }
        if (held.size() < majority && members < size) {
            return;
        }
        if (local.newestTerm() > term) {
            refused(local.newestTerm());
            return;
        }
        List<ReplicaEntry> merged = ReplicaState.merge(term, held);
        snapshots.clear();
        local.install(self, term, 0, merged);
        phase = Phase.PUSHING;
        pushed.add(self);
        for (PeerAddress peer : others()) {
            send.accept(peer, new Push(term, 0, merged));
        }
        maybePushed();
    }

    private void maybePushed() {
        if (phase == Phase.PUSHING && pushed.size() >= majority) {
            phase = Phase.READY;
            release();
        }
    }

    void onPushAck(PeerAddress from, PushAck ack) {
        if (ack.term() != term || phase == Phase.ENDED) {
            return;
        }
        if (!ack.accepted()) {
            refused(ack.newestTerm());
            return;
        }
        if (phase == Phase.PUSHING) {
            pushed.add(from);
            maybePushed();
        } else if (phase == Phase.READY) {
            pushed.add(from);
            for (Pending p : new ArrayList<>(pending.headMap(ack.upTo(), true).values())) {
                held(from, p);
            }
        }
    }

    void onWriteAck(PeerAddress from, WriteAck ack, long nowNanos) {
        if (ack.term() != term || phase != Phase.READY) {
            return;
        }
        if (ack.accepted()) {
            pushed.add(from);
            Pending p = pending.get(ack.seq());
            if (p != null) {
                held(from, p);
            }
        } else if (ack.behind()) {
            pushed.remove(from);
            pushTo(from, nowNanos);
        } else {
            refused(ack.newestTerm());
        }
    }

    /** A replica that misses writes gets the whole state, at most once per eighth of the write timeout. */
    private void pushTo(PeerAddress peer, long nowNanos) {
        Long last = lastPushNanos.get(peer);
        if (last != null && nowNanos - last < writeTimeoutNanos / 8) {
            return;
        }
        lastPushNanos.put(peer, nowNanos);
        send.accept(peer, new Push(term, local.appliedSeq(), local.entries()));
    }

    private void held(PeerAddress from, Pending p) {
        p.holders.add(from);
        if (p.holders.size() >= majority) {
            pending.remove(p.entry.versionSeq());
            p.result.complete(new FencedMapWrite(true, term, p.existed));
        }
    }

    /**
     * Writes {@code value} ({@code null} removes) once ready: applied here, sent to every replica, reported written
     * once a majority holds it.
     */
    CompletableFuture<FencedMapWrite> write(String map, String key, byte[] value, String writer, long nowNanos) {
        if (phase != Phase.READY) {
            return CompletableFuture.completedFuture(new FencedMapWrite(false, Math.max(refusedBy, term), false));
        }
        boolean existed = local.get(map, key).isPresent();
        ReplicaEntry entry = new ReplicaEntry(map, key, value, term, writer, term, local.appliedSeq() + 1);
        local.applyOwn(entry);
        Pending p = new Pending(entry, existed, nowNanos);
        pending.put(entry.versionSeq(), p);
        for (PeerAddress peer : others()) {
            send.accept(peer, new Write(term, entry));
        }
        held(self, p);
        return p.result;
    }

    /** A replica has seen {@code newer}: this term is over. */
    private void refused(long newer) {
        // A replica refuses the very same term only when another leader of it reached the replica first.
        conflicted |= newer == term;
        refusedBy = Math.max(refusedBy, newer);
        local.observe(newer);
        end(new StoreException("term " + term + " was superseded by term " + newer), newer);
    }

    /**
     * Ends the term: every write still waiting for a majority fails with {@code why}; calls waiting for the catch-up
     * resume (and find the term over).
     */
    void end(Exception why, long newer) {
        if (phase == Phase.ENDED) {
            return;
        }
        phase = Phase.ENDED;
        refusedBy = Math.max(refusedBy, newer);
        // A write that some replicas hold may still reach the next leader's state: its outcome is unknown, so it
        // fails rather than reads as refused.
        for (Pending p : pending.values()) {
            p.result.completeExceptionally(why);
        }
        pending.clear();
        release();
    }
}

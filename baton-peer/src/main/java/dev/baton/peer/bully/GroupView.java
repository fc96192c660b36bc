package dev.baton.peer.bully;

import dev.baton.core.store.LeaderRecord;
import dev.baton.peer.bully.BullyMessage.GroupMember;
import dev.baton.peer.bully.BullyMessage.Table;
import dev.baton.peer.bully.FailureDetector.Liveness;
import dev.baton.peer.transport.PeerAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a bully node knows of its group, shared by all its phases: its own process id, the group's term and the
 * highest term it has seen, the leader, the member table and the failure detector watching it, and the hold-down of a
 * leader that stepped down. The rules that only read this knowledge live here too: the bully order, the hold-down
 * rule, the next term to claim. No I/O: the phases and the node act on what it says. Confined to the node's scheduler,
 * except {@link #pid()}, which any thread may read.
 */
final class GroupView {

    final GroupTable table = new GroupTable();
    private final PeerAddress self;
    private final BullyConfig config;
    private FailureDetector detector;

    private volatile long pid;
    private long term;
    private long highestTerm;
    private long heardTerm;
    private long heardTermSince;
    /** The leader this node follows or is, or null, with its process id (for the detector). */
    PeerAddress leader;
    long leaderPid;
    /** A leader that resigned: left out of this node's elections until another node leads. */
    PeerAddress excluded;
    /** When this node last became a member without a break (the hold-down rule counts from there). */
    long memberSince;
    /** A store record of a member's claim this node waited for once; if it comes back, it is overwritten. */
    long awaitedTerm;
    private boolean holdingOff;
    private long holdOffUntil;

    GroupView(PeerAddress self, BullyConfig config) {
        this.self = self;
        this.config = config;
    }

    void watchWith(FailureDetector failureDetector) {
        this.detector = failureDetector;
    }

    FailureDetector detector() {
        return detector;
    }

    /** This node's process id in its group, 0 before it first joined. */
    long pid() {
        return pid;
    }

    void pid(long value) {
        pid = value;
    }

    /** The term of the group this node belongs to (the leader's term), 0 before it first joined. */
    long term() {
        return term;
    }

    /** This node belongs to the group of {@code newTerm} now (it follows or leads it). */
    void enterTerm(long newTerm) {
        observeTerm(newTerm);
        term = newTerm;
    }

    long highestTerm() {
        return highestTerm;
    }

    /** A term seen anywhere (a message, the store): the next claim goes above it. */
    void observeTerm(long seen) {
        highestTerm = Math.max(highestTerm, seen);
    }

    /** A newer term in a message: if no COORDINATOR of it arrives within a ping interval, this node rejoins. */
    void noteTerm(long heard, long now) {
        if (heard > term && heard > heardTerm) {
            if (heardTerm <= term) {
                heardTermSince = now;
            }
            heardTerm = heard;
        }
        observeTerm(heard);
    }

    /** The newer term heard of, if no word of its leader came for a ping interval; else 0. */
    long unansweredNewerTerm(long now) {
        return heardTerm > term && now - heardTermSince >= config.pingInterval().toNanos() ? heardTerm : 0;
    }

    /** Forgets a newer term heard of: this node joined it, or leaves its group for good. */
    void forgetHeardTerm() {
        heardTerm = 0;
    }

    /** Forgets a newer term heard of if this node's group has caught up with it. */
    void caughtUp() {
        if (heardTerm <= term) {
            heardTerm = 0;
        }
    }

    boolean holdingOff() {
        return holdingOff;
    }

    /** This node stepped down: it stays out of elections for holdDown (or until another node leads). */
    void holdOff(long now) {
        holdingOff = true;
        holdOffUntil = now + config.holdDown().toNanos();
    }

    void endHoldOff() {
        holdingOff = false;
    }

    /** Whether a hold-down was running and is over now (it ends here). */
    boolean holdOffOver(long now) {
        if (holdingOff && now - holdOffUntil >= 0) {
            holdingOff = false;
            return true;
        }
        return false;
    }

    // ---- the bully order

    /** The bully order: the higher process id wins; equal ids (two lineages) are ordered by address. */
    static boolean outranks(long pidA, PeerAddress a, long pidB, PeerAddress b) {
        return pidA != pidB ? pidA > pidB : a.compareTo(b) > 0;
    }

    /** Whether {@code other} with process id {@code otherPid} outranks this node. */
    boolean outranksSelf(long otherPid, PeerAddress other) {
        return outranks(otherPid, other, pid, self);
    }

    /** Members that outrank this node and are not confirmed failed, nor excluded (a resigned leader). */
    List<GroupMember> higherLive() {
        List<GroupMember> higher = new ArrayList<>();
        for (GroupMember member : table.members()) {
            if (!member.address().equals(self) && !member.address().equals(excluded)
                    && outranks(member.pid(), member.address(), pid, self)
                    && detector.liveness(member.address()) != Liveness.FAILED) {
                higher.add(member);
            }
        }
        return higher;
    }

    /**
     * The hold-down rule: a member takes over from a healthy leader it outranks only if it is the highest live process
     * it knows of and has been a member without a break for holdDown.
     */
    boolean shouldPreempt(long now) {
        if (leader == null || holdingOff || now - memberSince < config.holdDown().toNanos()) {
            return false;
        }
        GroupMember current = table.get(leader);
        if (current == null || !outranks(pid, self, current.pid(), leader)
                || detector.liveness(leader) != Liveness.ALIVE) {
            return false;
        }
        return higherLive().isEmpty();
    }

    /**
     * The next term to claim: above the stored one, above every term this node has seen, and at least this machine's
     * wall clock in µs since the epoch (DESIGN §3, rule 5). The first two keep terms increasing while the store or
     * this process remembers; the clock covers a store that comes back older (a leader record file restored from an
     * old copy) after every process restarted and remembers nothing: a term claimed at clock time t is at most t in
     * µs while the group averages under one claim per µs, so a later claim is above it unless the claiming machine's
     * clock is behind the earlier claimer's by more than the time since. The clock is the claimer's, not the
     * store's: a {@link FileLeaderStore} is local to one machine, so there the two are the same clock.
     */
    long nextTerm(Optional<LeaderRecord> record, Instant wallClock) {
        long counter = Math.max(record.map(LeaderRecord::term).orElse(0L), highestTerm) + 1;
        return Math.max(counter, epochMicros(wallClock));
    }

    private static long epochMicros(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000);
    }

    // ---- the table

    /** The detector watches the table, and the leader even before the table lists it. */
    void watch() {
        detector.track(table.members(), leader, leaderPid);
    }

    /** The table as a message of the group's term. */
    Table tableMessage() {
        return new Table(term, table.revision(), table.nextPid(), table.snapshot());
    }

    /** Every member in the table but this node. */
    List<PeerAddress> others() {
        List<PeerAddress> others = new ArrayList<>();
        for (GroupMember member : table.members()) {
            if (!member.address().equals(self)) {
                others.add(member.address());
            }
        }
        return others;
    }

    /** Whether {@code address} is this node's leader. */
    boolean isLeader(PeerAddress address) {
        return address.equals(leader);
    }

    @Override
    public String toString() {
        return "pid=" + pid + " term=" + term + " leader=" + leader + " members=" + table.size();
    }
}

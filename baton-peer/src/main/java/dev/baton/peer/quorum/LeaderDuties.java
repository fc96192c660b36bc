package dev.baton.peer.quorum;

import static dev.baton.peer.quorum.QuorumMessage.NO_STAMP;

import dev.baton.core.MemberState;
import dev.baton.peer.MemberCard;
import dev.baton.peer.quorum.QuorumMessage.ClusterAlignment;
import dev.baton.peer.quorum.QuorumMessage.JoinClusterResponse;
import dev.baton.peer.quorum.QuorumMessage.LeaderKeepAlive;
import dev.baton.peer.quorum.QuorumMessage.LeaderKeepAliveAck;
import dev.baton.peer.quorum.QuorumMessage.MemberStatusUpdate;
import dev.baton.peer.quorum.QuorumMessage.NewLeader;
import dev.baton.peer.quorum.QuorumMessage.Probe;
import dev.baton.peer.quorum.QuorumMessage.ProbeRequest;
import dev.baton.peer.quorum.QuorumMessage.SeedKeepAlive;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a node does while it is the leader (or the decided leader waiting for its first majority): the member table
 * with seed 003's states and timings, keep-alive acknowledgements and the check-quorum deadline they feed, indirect
 * probes of silent members, and keep-alives to the seeds. Only the leader changes a member's state; every change gets
 * a new table revision and is broadcast. Confined to the node's scheduler.
 *
 * <p><b>Check-quorum.</b> Each acknowledgement carries a stamp from the leader's clock; a follower echoes the newest
 * stamp it received in its next keep-alive. An echoed stamp {@code s} proves that the follower heard this leader at
 * or after {@code s}, so it will not vote for a successor before {@code s + ttlTimeout} on its own clock. The
 * leadership is valid until the M-th newest such stamp (the leader's own "now" counts as one) plus heartbeatTimeout,
 * which ends before any majority can elect a successor (see {@code docs/quorum.md}).
 */
final class LeaderDuties {

    private static final class Member {
        MemberCard card;
        MemberState state;
        long revision;
        long joinRevision;
        long lastHeard;
        long basis = NO_STAMP;
        long joinedAtMillis;
        long lastSeenMillis;
        /** When this member was last sent the whole table; see {@link #lastSeenRefresh}. */
        long alignedAt = NO_STAMP;
        boolean probing;
        long probeId;
        long probeDeadline;
    }

    /**
     * How often a follower is sent the whole table even though it holds the newest revision: half the heartbeat
     * timeout, at least a second. The times a member was last heard from change with every keep-alive but make no
     * revision (display only), so without this a follower's copy keeps each member's join time as its last-seen time,
     * and its {@code /cluster/status} and dashboard show healthy members as silent for minutes.
     */
    static Duration lastSeenRefresh(QuorumConfig config) {
        Duration half = config.heartbeatTimeout().dividedBy(2);
        return half.compareTo(Duration.ofSeconds(1)) > 0 ? half : Duration.ofSeconds(1);
    }

    /** The leadership the table serves: told of majorities and member changes, asked for its deadline. */
    interface Term {

        /** True while the term waits for its first majority (the new-leader notice is repeated every tick). */
        boolean awaitingMajority();

        /** The deadline of the valid leadership, or {@link QuorumMessage#NO_STAMP}. */
        long leadershipDeadline();

        /** A majority's acknowledgements support the leadership until {@code deadline}. */
        void onMajorityDeadline(long deadline);

        void memberJoined(MemberEntry entry);

        void memberStateChanged(MemberEntry entry, MemberState from, MemberState to);

        void memberRemoved(PeerAddress address);
    }

    private final NodeContext ctx;
    private final Term term;
    private final long version;
    private final long startedAt;
    private final Map<PeerAddress, Member> members = new TreeMap<>();
    private long revision = 1;

    /** A table for the leader of {@code version}, starting from the members the node knew as a follower. */
    LeaderDuties(NodeContext ctx, Term term, long version, MemberCard selfCard, Collection<MemberEntry> inherited) {
        this.ctx = ctx;
        this.term = term;
        this.version = version;
        this.startedAt = ctx.clock().nanoTime();
        long millis = ctx.clock().instant().toEpochMilli();
        for (MemberEntry entry : inherited) {
            if (entry.address().equals(ctx.self()) || entry.state() == MemberState.REMOVED) {
                continue;
            }
            Member member = new Member();
            member.card = entry.card();
            member.state = entry.state();
            member.revision = revision;
            member.joinRevision = entry.state() == MemberState.JOINING ? revision : 0;
            member.lastHeard = startedAt;
            member.joinedAtMillis = entry.joinedAtMillis();
            member.lastSeenMillis = entry.lastSeenMillis();
            members.put(entry.address(), member);
        }
        Member self = new Member();
        self.card = selfCard;
        self.state = MemberState.ACTIVE;
        self.revision = revision;
        self.lastHeard = startedAt;
        self.joinedAtMillis = millis;
        self.lastSeenMillis = millis;
        members.put(ctx.self(), self);
    }

    long version() {
        return version;
    }

    /** The new-leader notification to everyone; its stamp counts as an acknowledgement. */
    void announce() {
        long now = ctx.clock().nanoTime();
        for (PeerAddress target : ctx.electionTargets()) {
            Member member = members.get(target);
            if (member == null || member.basis == NO_STAMP) {
                ctx.send(target, new NewLeader(version, ctx.self(), now));
            }
        }
    }

    /** Every heartbeatInterval. */
    void tick() {
        long now = ctx.clock().nanoTime();
        QuorumConfig config = ctx.config();
        if (term.awaitingMajority()) {
            announce();
        }
        for (PeerAddress seed : config.seeds()) {
            if (!seed.equals(ctx.self())) {
                ctx.send(seed, new SeedKeepAlive(version));
            }
        }
        for (Map.Entry<PeerAddress, Member> e : new ArrayList<>(members.entrySet())) {
            PeerAddress address = e.getKey();
            Member member = e.getValue();
            if (address.equals(ctx.self())) {
                member.lastHeard = now;
                member.lastSeenMillis = ctx.clock().instant().toEpochMilli();
                continue;
            }
            long silent = now - member.lastHeard;
            switch (member.state) {
                case JOINING, ACTIVE -> {
                    if (silent >= config.heartbeatTimeout().toNanos()) {
                        if (!member.probing) {
                            startProbe(address, member, now);
                        } else if (now - member.probeDeadline >= 0) {
                            // Neither the member nor the members asked to probe it could reach it.
                            member.probing = false;
                            setState(address, member, MemberState.UNREACHABLE);
                        }
                    }
                }
                case UNREACHABLE -> {
                    if (silent >= config.ttlTimeout().toNanos()) {
                        setState(address, member, MemberState.LEAVING);
                    } else if (!member.probing || now - member.probeDeadline >= 0) {
                        startProbe(address, member, now);
                    }
                }
                case LEAVING -> setState(address, member, MemberState.REMOVED);
                case REMOVED -> members.remove(address);
            }
        }
        if (config.allowLoneSeedBootstrap()) {
            term.onMajorityDeadline(now + config.heartbeatTimeout().toNanos());
        }
    }

    private void startProbe(PeerAddress target, Member member, long now) {
        List<PeerAddress> helpers = new ArrayList<>();
        members.forEach((address, other) -> {
            if (other.state == MemberState.ACTIVE && !address.equals(target) && !address.equals(ctx.self())) {
                helpers.add(address);
            }
        });
        long probeId = ctx.random().nextLong();
        member.probing = true;
        member.probeId = probeId;
        member.probeDeadline = now + ctx.config().probeTimeout().toNanos();
        ctx.send(target, new Probe(probeId));
        for (int i = 0; i < 2 && !helpers.isEmpty(); i++) {
            PeerAddress helper = helpers.remove(ctx.random().nextInt(helpers.size()));
            ctx.send(helper, new ProbeRequest(version, target, probeId));
        }
    }

    /** The target answered the leader's own probe, or a helper reports what it found. */
    void onProbeResult(PeerAddress target, long probeId, boolean reachable) {
        Member member = members.get(target);
        if (member == null || !member.probing || member.probeId != probeId || !reachable) {
            return;
        }
        member.probing = false;
        member.lastHeard = ctx.clock().nanoTime();
        if (member.state == MemberState.UNREACHABLE) {
            setState(target, member, MemberState.ACTIVE);
        }
    }

    /** A follower's keep-alive: record it, move its state on, acknowledge it (only a leader acknowledges). */
    void onKeepAlive(PeerAddress from, LeaderKeepAlive keepAlive) {
        long now = ctx.clock().nanoTime();
        Member member = members.get(from);
        if (member == null && liveCount() < ctx.config().clusterSize()) {
            // A node that follows this leader without being in the table (it learned of the election, or the
            // inherited table did not have it): admit it as if it had asked to join.
            member = admit(from, new MemberCard(from.format(), null, dev.baton.core.Capabilities.DEFAULT, Map.of()),
                    null);
        }
        if (member == null || member.state == MemberState.REMOVED || member.state == MemberState.LEAVING) {
            // Not (or no longer) a member: say so; the receiver rejoins (receiving validation on its side).
            ctx.send(from, new MemberStatusUpdate(version, removedEntry(from, member)));
            return;
        }
        member.lastHeard = now;
        member.lastSeenMillis = ctx.clock().instant().toEpochMilli();
        member.probing = false;
        long echo = keepAlive.echo();
        if (echo != NO_STAMP && echo - startedAt >= 0 && now - echo >= 0 && (member.basis == NO_STAMP
                || echo - member.basis > 0)) {
            member.basis = echo;
        }
        if (member.state == MemberState.UNREACHABLE) {
            setState(from, member, MemberState.ACTIVE);
        } else if (member.state == MemberState.JOINING && keepAlive.viewRevision() >= member.joinRevision) {
            // The member holds the table as of its joining: its initialisation is finished.
            setState(from, member, MemberState.ACTIVE);
        }
        if (keepAlive.viewRevision() < revision || member.alignedAt == NO_STAMP
                || now - member.alignedAt >= lastSeenRefresh(ctx.config()).toNanos()) {
            // A stale follower needs the table; an up-to-date one gets it now and then for the last-seen times.
            ctx.send(from, alignment());
            member.alignedAt = now;
        }
        long validFor = term.leadershipDeadline() == NO_STAMP ? 0 : Math.max(0, term.leadershipDeadline() - now);
        ctx.send(from, new LeaderKeepAliveAck(version, keepAlive.sentAt(), now, validFor));
        recomputeDeadline(now);
    }

    /**
     * Members whose acceptance of this node's formal proposal decided its election: each backs this leader from
     * {@code since}, this node's clock when it sent that proposal, as an echoed stamp would (an acceptor does not vote
     * in a newer instance for ttlTimeout after it accepted). Members not in the table are left to their keep-alives.
     */
    void backedByVotes(Collection<PeerAddress> backers, long since) {
        for (PeerAddress backer : backers) {
            Member member = members.get(backer);
            if (member != null && !backer.equals(ctx.self())
                    && (member.basis == NO_STAMP || since - member.basis > 0)) {
                member.basis = since;
            }
        }
    }

    /** The deadline the current acknowledgements support; reported to the node. */
    void recomputeDeadline(long now) {
        if (ctx.config().allowLoneSeedBootstrap()) {
            term.onMajorityDeadline(now + ctx.config().heartbeatTimeout().toNanos());
            return;
        }
        long[] bases = new long[members.size()];
        int count = 0;
        for (Map.Entry<PeerAddress, Member> e : members.entrySet()) {
            if (e.getKey().equals(ctx.self())) {
                // The leader backs itself, unless its acceptor promised a newer election before it was elected.
                if (ctx.acceptor().instance() <= version) {
                    bases[count++] = now;
                }
            } else if (e.getValue().basis != NO_STAMP) {
                bases[count++] = e.getValue().basis;
            }
        }
        int majority = ctx.config().majority();
        if (count < majority) {
            return;
        }
        long[] sorted = Arrays.copyOf(bases, count);
        Arrays.sort(sorted);
        long mth = sorted[count - majority];
        term.onMajorityDeadline(mth + ctx.config().heartbeatTimeout().toNanos());
    }

    /** JoinClusterRequest: admit the sender (or update its card), answer, and send it the whole table. */
    void onJoin(PeerAddress from, MemberCard card) {
        Member member = members.get(from);
        long now = ctx.clock().nanoTime();
        if (member == null || member.state == MemberState.REMOVED || member.state == MemberState.LEAVING) {
            if (liveCount() >= ctx.config().clusterSize()) {
                ctx.send(from, new JoinClusterResponse(false, version, ctx.self(),
                        "cluster full: clusterSize is " + ctx.config().clusterSize()));
                return;
            }
            ctx.send(from, new JoinClusterResponse(true, version, ctx.self(), null));
            admit(from, card, member);
        } else {
            member.lastHeard = now;
            ctx.send(from, new JoinClusterResponse(true, version, ctx.self(), null));
            if (!member.card.equals(card)) {
                member.card = card;
                revision++;
                member.revision = revision;
                broadcast(from, member);
            }
            if (member.state == MemberState.UNREACHABLE) {
                setState(from, member, MemberState.ACTIVE);
            }
        }
        ctx.send(from, alignment());
    }

    /** A new entry in state joining (replacing a leaving or removed one), broadcast to everyone. */
    private Member admit(PeerAddress from, MemberCard card, Member previousEntry) {
        MemberState previous = previousEntry != null ? previousEntry.state : null;
        Member member = new Member();
        member.card = card;
        member.state = MemberState.JOINING;
        member.joinedAtMillis = ctx.clock().instant().toEpochMilli();
        members.put(from, member);
        revision++;
        member.revision = revision;
        member.joinRevision = revision;
        member.lastHeard = ctx.clock().nanoTime();
        member.lastSeenMillis = member.joinedAtMillis;
        broadcast(from, member);
        if (previous == null) {
            term.memberJoined(entry(from, member));
        } else {
            term.memberStateChanged(entry(from, member), previous, MemberState.JOINING);
        }
        return member;
    }

    /** LeaveCluster: the member leaves on purpose. */
    void onLeave(PeerAddress from) {
        Member member = members.get(from);
        if (member != null && member.state != MemberState.LEAVING && member.state != MemberState.REMOVED) {
            setState(from, member, MemberState.LEAVING);
        }
    }

    /** The leader's own card changed. */
    void updateSelf(MemberCard card) {
        Member self = members.get(ctx.self());
        if (!self.card.equals(card)) {
            self.card = card;
            revision++;
            self.revision = revision;
            broadcast(ctx.self(), self);
        }
    }

    private void setState(PeerAddress address, Member member, MemberState to) {
        MemberState from = member.state;
        member.state = to;
        revision++;
        member.revision = revision;
        broadcast(address, member);
        if (to == MemberState.REMOVED) {
            members.remove(address);
            term.memberRemoved(address);
        } else {
            term.memberStateChanged(entry(address, member), from, to);
        }
    }

    private void broadcast(PeerAddress subject, Member member) {
        MemberStatusUpdate update = new MemberStatusUpdate(version, entry(subject, member));
        for (PeerAddress address : members.keySet()) {
            if (!address.equals(ctx.self())) {
                ctx.send(address, update);
            }
        }
        if (!members.containsKey(subject) && !subject.equals(ctx.self())) {
            ctx.send(subject, update);
        }
    }

    private ClusterAlignment alignment() {
        return new ClusterAlignment(version, revision, entries());
    }

    private MemberEntry removedEntry(PeerAddress address, Member member) {
        MemberCard card = member != null ? member.card : new MemberCard(address.format(), null,
                dev.baton.core.Capabilities.DEFAULT, Map.of());
        return new MemberEntry(address, card, MemberState.REMOVED, revision, 0, 0);
    }

    private MemberEntry entry(PeerAddress address, Member member) {
        return new MemberEntry(address, member.card, member.state, member.revision, member.joinedAtMillis,
                member.lastSeenMillis);
    }

    /** Every member but the removed, ordered by address. */
    List<MemberEntry> entries() {
        List<MemberEntry> result = new ArrayList<>(members.size());
        members.forEach((address, member) -> {
            if (member.state != MemberState.REMOVED) {
                result.add(entry(address, member));
            }
        });
        return result;
    }

    private int liveCount() {
        int live = 0;
        for (Member member : members.values()) {
            if (member.state != MemberState.REMOVED && member.state != MemberState.LEAVING) {
                live++;
            }
        }
        return live;
    }

    /** Every member but this node, in any state: the recipients of a resignation or a rejoin order. */
    List<PeerAddress> others() {
        List<PeerAddress> result = new ArrayList<>();
        for (PeerAddress address : members.keySet()) {
            if (!address.equals(ctx.self())) {
                result.add(address);
            }
        }
        return result;
    }

    /** The active member that acknowledged this leader most recently: the best bet to take over at once. */
    PeerAddress successor() {
        PeerAddress best = null;
        long bestBasis = NO_STAMP;
        for (Map.Entry<PeerAddress, Member> e : members.entrySet()) {
            Member member = e.getValue();
            if (e.getKey().equals(ctx.self()) || member.state != MemberState.ACTIVE || member.basis == NO_STAMP) {
                continue;
            }
            if (best == null || member.basis - bestBasis > 0) {
                best = e.getKey();
                bestBasis = member.basis;
            }
        }
        return best;
    }

    /** The member's state as the table holds it, or {@code null} (for tests and status). */
    MemberState stateOf(PeerAddress address) {
        Member member = members.get(address);
        return member == null ? null : member.state;
    }
}

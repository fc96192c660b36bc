package dev.baton.peer.bully;

import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.LeaderInfo;
import dev.baton.core.NodeState;
import dev.baton.core.store.LeaderRecord;
import dev.baton.peer.bully.BullyMessage.GroupMember;
import dev.baton.peer.bully.BullyMessage.JoinAccepted;
import dev.baton.peer.bully.BullyNode.Phase;
import dev.baton.peer.internal.NodeOutput;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The phase a {@link BullyNode} is in, and every move between phases. Each phase object reports how it ended through
 * its outcome interface, which this class implements: it ends the old phase (its timers stop, its late callbacks are
 * dropped), sets up what the new one starts from in the {@link GroupView}, and starts it. It also publishes the
 * node's snapshot (state and problem) for other threads. Confined to the node's scheduler.
 */
final class Phases implements JoinProcess.Outcome, Founding.Outcome, Candidacy.Outcome, Leading.Outcome {

    private static final Logger log = LoggerFactory.getLogger(Phases.class);

    private final NodeContext context;
    private final GroupView view;
    private final boolean standalone;
    private final NodeOutput output;
    private final PeerAddress self;
    private BullyPhase current = new BullyPhase(Phase.CREATED);

    Phases(NodeContext context, GroupView view, boolean standalone) {
        this.context = context;
        this.view = view;
        this.standalone = standalone;
        this.output = context.output();
        this.self = context.self();
    }

    BullyPhase current() {
        return current;
    }

    boolean in(Phase kind) {
        return current.kind() == kind;
    }

    /** Whether this node is a member of a group (it follows, elects or leads). */
    boolean member() {
        return switch (current.kind()) {
            case FOLLOWING, ELECTING, AWAITING, CLAIMING, LEADING -> true;
            default -> false;
        };
    }

    /** The leadership this node holds, or null. */
    Leading leading() {
        return current instanceof Leading held ? held : null;
    }

    /** Leaves the current phase (its timers stop, its late callbacks are dropped) and enters {@code next}. */
    void enter(BullyPhase next) {
        current.end();
        current = next;
    }

    /** Enters {@code FOLLOWING}: a member, with or without a leader. */
    void enterFollowing() {
        enter(new BullyPhase(Phase.FOLLOWING));
    }

    // ---- joining and founding

    /** Looks for the group's leader through the store and asks it to admit this node. */
    void beginJoin() {
        JoinProcess join = new JoinProcess(context, this);
        enter(join);
        join.start();
    }

    /** The leader admitted this node (seed: the Ack with a PID); the failure detector starts now. */
    @Override
    public void joined(PeerAddress from, JoinAccepted accepted) {
        enterFollowing();
        view.pid(accepted.pid());
        view.leaderPid = accepted.leaderPid();
        view.enterTerm(accepted.term());
        view.table.replace(accepted.revision(), accepted.nextPid(), accepted.members());
        view.memberSince = context.clock().nanoTime();
        context.problemSolved();
        log.debug("{} joined group {} led by {} (term {}) as pid {}", self, context.group(), from, view.term(),
                view.pid());
        setLeader(from);
        view.watch();
        output.roundCompleted(false);
    }

    @Override
    public void noLeader(LeaderRecord lastSeen) {
        foundGroup(lastSeen);
    }

    /** The join loop gave up after the leader kept refusing: report it and start over (the seed exits instead). */
    @Override
    public void refused(String reason, LeaderRecord record) {
        context.reportError("could not join group " + context.group()
                + (record != null ? " through " + record.address() : "") + " after "
                + context.config().joinAttempts() + " attempts: " + reason + "; starting over");
        beginJoin();
    }

    /** No leader found: this node founds the group (process id 1) if the store lets it. */
    void foundGroup(LeaderRecord lastSeen) {
        Founding founding = new Founding(context, view, standalone, this);
        enter(founding);
        founding.start(lastSeen);
    }

    /** The store took this node's founding record: it is process 1 of a new group, and leads it. */
    @Override
    public void founded(long newTerm, long issuedAt) {
        view.pid(1);
        view.table.found(self, 1, context.incarnation(), context.card(), context.clock().instant().toEpochMilli());
        view.memberSince = context.clock().nanoTime();
        becomeLeader(newTerm, issuedAt);
    }

    @Override
    public void join() {
        beginJoin();
    }

    @Override
    public void retry() {
        if (standalone) {
            foundGroup(null);
        } else {
            beginJoin();
        }
    }

    /** Leaves the current group (a newer term exists) and joins again through the store; the process id is kept. */
    @Override
    public void rejoin(String reason) {
        log.debug("{} rejoins group {}: {}", self, context.group(), reason);
        Leading leading = leading();
        if (leading != null) {
            leading.lose(LossReason.LEASE_TAKEN);
        }
        view.detector().clear();
        view.table.clear();
        view.forgetHeardTerm();
        setLeader(null);
        beginJoin();
    }

    // ---- the election

    /** ELECTION to every higher live process; with none, or no ANSWER within electionTimeout, this node claims. */
    void startElection() {
        if (view.holdingOff() || !member() || in(Phase.LEADING)) {
            return;
        }
        Candidacy.Electing electing = new Candidacy.Electing(context, view, this);
        enter(electing);
        electing.start();
    }

    @Override
    public void claim() {
        Candidacy.Claiming claiming = new Candidacy.Claiming(context, view, this);
        enter(claiming);
        claiming.start();
    }

    @Override
    public void await(Duration timeout) {
        Candidacy.Awaiting awaiting = new Candidacy.Awaiting(context, this);
        enter(awaiting);
        awaiting.start(timeout);
    }

    @Override
    public void electAgain() {
        enterFollowing();
        startElection();
    }

    @Override
    public void elected(long newTerm, long issuedAt) {
        becomeLeader(newTerm, issuedAt);
    }

    /** {@code from} leads {@code newTerm} (its COORDINATOR): this node follows it. */
    void follow(PeerAddress from, long newTerm, long newLeaderPid) {
        if (!in(Phase.FOLLOWING) || !from.equals(view.leader) || newTerm != view.term()) {
            enterFollowing();
        }
        view.enterTerm(newTerm);
        view.caughtUp();
        view.excluded = null;
        view.endHoldOff();
        view.leaderPid = newLeaderPid;
        setLeader(from);
        view.watch();
        output.roundCompleted(false);
    }

    // ---- leading

    private void becomeLeader(long newTerm, long confirmedAt) {
        Leading leading = new Leading(context, view, this);
        enter(leading);
        view.enterTerm(newTerm);
        view.forgetHeardTerm();
        view.excluded = null;
        context.problemSolved();
        long wall = context.clock().instant().toEpochMilli();
        List<GroupMember> dropped = view.table.takeOver(self, view.pid(), context.incarnation(), context.card(),
                view.detector().failed(), wall);
        view.watch();
        log.debug("{} leads group {} with term {} (pid {})", self, context.group(), view.term(), view.pid());
        setLeader(self);
        leading.begin(confirmedAt, dropped);
    }

    @Override
    public void lapsed() {
        enterFollowing();
        setLeader(null);
        // The members keep this node as their leader until it claims again (or fails): it is still the highest.
        startElection();
    }

    @Override
    public void changed() {
        publish();
    }

    // ---- what other threads see

    /** Shows {@code who} (null: nobody) as the leader; a change is an event, losing the leader starts a round. */
    void setLeader(PeerAddress who) {
        LeaderInfo shown = output.leader();
        boolean changed = who == null ? shown != null
                : shown == null || !shown.nodeId().equals(who.format()) || shown.term() != view.term();
        view.leader = who;
        if (who == null && changed) {
            output.roundStarted();
        }
        if (changed) {
            output.leaderChanged(who == null ? null : new LeaderInfo(who.format(), view.term()));
        }
    }

    /** Publishes the node's state and the problem it shows (none while closed: closing cleared them). */
    void publish() {
        NodeState state = switch (current.kind()) {
            case LEADING -> leading().valid() ? NodeState.LEADER : NodeState.CANDIDATE;
            case ELECTING, AWAITING, CLAIMING, FOUNDING -> NodeState.CANDIDATE;
            case CLOSED -> NodeState.STOPPED;
            default -> NodeState.FOLLOWER;
        };
        String shown = context.problem();
        if (shown == null && in(Phase.JOINING)) {
            shown = current.describe();
        } else if (shown == null && member() && view.leader == null) {
            shown = "no leader: election running";
        }
        if (!in(Phase.CLOSED)) {
            output.snapshot(state, shown);
        }
    }

    @Override
    public String toString() {
        return current.kind() + " " + view;
    }
}

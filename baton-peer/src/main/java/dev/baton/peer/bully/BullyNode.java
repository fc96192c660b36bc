package dev.baton.peer.bully;

import dev.baton.core.ElectionMetrics;
import dev.baton.core.MemberStatus;
import dev.baton.core.spi.EventDispatcher;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler.Cancellable;
import dev.baton.core.time.Scheduler;
import dev.baton.peer.MemberCard;
import dev.baton.peer.bully.BullyMessage.Ack;
import dev.baton.peer.bully.BullyMessage.Answer;
import dev.baton.peer.bully.BullyMessage.Coordinator;
import dev.baton.peer.bully.BullyMessage.Election;
import dev.baton.peer.bully.BullyMessage.GroupMember;
import dev.baton.peer.bully.BullyMessage.Join;
import dev.baton.peer.bully.BullyMessage.JoinAccepted;
import dev.baton.peer.bully.BullyMessage.JoinRefused;
import dev.baton.peer.bully.BullyMessage.Leave;
import dev.baton.peer.bully.BullyMessage.Ping;
import dev.baton.peer.bully.BullyMessage.ProbeReport;
import dev.baton.peer.bully.BullyMessage.ProbeRequest;
import dev.baton.peer.bully.BullyMessage.Resign;
import dev.baton.peer.bully.BullyMessage.Table;
import dev.baton.peer.internal.NodeOutput;
import dev.baton.peer.internal.ProtocolNode;
import dev.baton.peer.internal.TickFailures;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bully protocol of one node (seed 004, made safe where it can be): a pure state machine driven by its
 * {@link Scheduler}. Every input (a message, a timer, a store answer, a user command) runs as a scheduler task; the
 * node sends through its {@link Transport}, reads time only through {@link Clock}, draws randomness only from the
 * {@link Random} it is given, and keeps nothing on disk: the leader store is the group's only memory.
 *
 * <p>This class is the dispatcher: it routes each input to where it belongs — a message to the join loop, the
 * failure detector or {@link MemberMessages} (the rules every member follows, which hand the leader's and the
 * election's parts to their phase), a tick to the detector and the term and hold-down rules, a command to the phase
 * the node is in — while {@link Phases} holds the phase and moves the node between phases. Phases: {@code JOINING}
 * (the seed's join loop, {@link JoinProcess}; no failure detector yet), {@code FOUNDING} (no leader found: becomes
 * leader with process id 1, {@link Founding}), {@code FOLLOWING}, {@code ELECTING} (sent ELECTION to the higher
 * processes), {@code AWAITING} (a higher process answered, or another node won the store: waits for its
 * COORDINATOR), {@code CLAIMING} (reads the store and writes the next term; these three are in {@link Candidacy}),
 * {@code LEADING} (one term, {@link Leading}; its table steps return their {@link Effects}), {@code CLOSED}. Each
 * phase sees only a {@link PhaseContext} and the {@link GroupView} (what the node knows of its group). Members run
 * the {@link FailureDetector}; the leader keeps the {@link GroupTable}. A leader-store write always comes before the
 * messages that depend on it: COORDINATOR and the table go out only from the accepted write's callback.
 *
 * <p>Terms: every leadership is a term taken from the leader store by compare-and-set, so no term ever has two
 * leaders; the next term is above the stored one, above every term this node has seen, and at least the wall clock
 * in µs (see {@link GroupView#nextTerm}), so a store restored from an older copy does not make a term come round
 * again. Every message carries the sender's group term; a node that hears a newer term than its own for a whole ping
 * interval without learning its leader leaves its group and joins again through the store (that is how the groups of
 * a healed partition merge). A leader stops when it learns of a newer term (COORDINATOR, the store) or cannot confirm
 * its own in the store for leadershipValidity.
 */
final class BullyNode implements ProtocolNode<BullyMessage> {

    private static final Logger log = LoggerFactory.getLogger(BullyNode.class);

    /** Where the node is; each phase but CREATED, FOLLOWING and CLOSED has its own phase object. */
    enum Phase { CREATED, JOINING, FOUNDING, FOLLOWING, ELECTING, AWAITING, CLAIMING, LEADING, CLOSED }

    private final String group;
    private final PeerAddress self;
    private final BullyConfig config;
    private final Clock clock;
    private final Scheduler scheduler;
    private final boolean standalone;
    private final NodeOutput output;
    private final TickFailures tickFailures;
    private final NodeContext context;
    private final GroupView view;
    private final FailureDetector detector;
    private final Phases phases;
    private final MemberMessages messages;
    private final Set<Class<?>> unknownTypes = new HashSet<>();
    private long protocolErrors;
    private Cancellable tickTimer = Cancellable.NONE;

    BullyNode(String group, PeerAddress self, MemberCard card, BullyConfig config, Transport<BullyMessage> transport,
            LeaderStoreCalls store, boolean standalone, Clock clock, Scheduler scheduler, Random random,
            EventDispatcher events, ElectionMetrics metrics) {
        this.group = group;
        this.self = self;
        this.config = config;
        this.clock = clock;
        this.scheduler = scheduler;
        this.standalone = standalone;
        this.output = new NodeOutput(events, clock, metrics);
        this.tickFailures = new TickFailures(log, clock, output, "[" + group + " " + self + "]");
        long incarnation;
        do {
            incarnation = random.nextLong();
        } while (incarnation == 0);
        this.view = new GroupView(self, config);
        this.context = new NodeContext(group, self, incarnation, card, config, clock, scheduler, random, store, output,
                transport, view);
        this.detector = new FailureDetector(context, new Verdicts());
        view.watchWith(detector);
        this.phases = new Phases(context, view, standalone);
        this.messages = new MemberMessages(context, view, phases);
    }

    // ================================================================ accessors for the adapter and tests

    @Override
    public PeerAddress self() {
        return self;
    }

    /** What this node tells the group about itself; safe from any thread. */
    MemberCard card() {
        return context.card();
    }

    @Override
    public NodeOutput output() {
        return output;
    }

    Phase phase() {
        return phases.current().kind();
    }

    /** This node's process id in its group, 0 before it first joined; safe from any thread. */
    long pid() {
        return view.pid();
    }

    /** The term of the group this node belongs to (the leader's term), 0 before it first joined. */
    long term() {
        return view.term();
    }

    /** The leader this node follows or is, or null. */
    PeerAddress leader() {
        return view.leader;
    }

    /** The member table this node holds: its own while it leads, else its leader's copy. */
    List<GroupMember> members() {
        return view.table.snapshot();
    }

    @Override
    public List<MemberStatus> memberStatuses() {
        List<MemberStatus> statuses = new ArrayList<>();
        for (GroupMember member : view.table.members()) {
            statuses.add(new MemberStatus(GroupTable.nodeInfo(member, view.leader), member.state()));
        }
        return statuses;
    }

    /** Messages of a type this node has no handler for (a bug: every message type must have one). */
    long protocolErrors() {
        return protocolErrors;
    }

    private boolean in(Phase kind) {
        return phases.in(kind);
    }

    // ================================================================ inputs

    @Override
    public void start() {
        if (!in(Phase.CREATED)) {
            return;
        }
        output.roundStarted();
        scheduleTick();
        if (standalone) {
            // Stand-alone mode (seed: self == leader): nobody else can find this group, so there is nothing to
            // look for; found it at once.
            phases.foundGroup(null);
        } else {
            phases.beginJoin();
        }
        phases.publish();
    }

    @Override
    public void onMessage(PeerAddress from, BullyMessage message) {
        if (in(Phase.CREATED) || in(Phase.CLOSED) || from.equals(self)) {
            return;
        }
        dispatch(from, message);
        phases.publish();
    }

    /**
     * Every message type has its branch: the joiner's answers go to the join loop, the detector's probes to the
     * detector, the rest to {@link MemberMessages}. A type without a branch (added to {@link BullyMessage} only) is a
     * protocol error, never dropped in silence.
     */
    private void dispatch(PeerAddress from, BullyMessage message) {
        if (message instanceof Ping m) {
            messages.onPing(from, m);
        } else if (message instanceof Ack m) {
            messages.onAck(from, m);
        } else if (message instanceof ProbeRequest m) {
            if (phases.member()) {
                detector.onProbeRequest(from, m);
            }
        } else if (message instanceof ProbeReport m) {
            if (phases.member()) {
                detector.onProbeReport(m);
            }
        } else if (message instanceof Join m) {
            messages.onJoin(from, m);
        } else if (message instanceof JoinAccepted m) {
            if (phases.current() instanceof JoinProcess join) {
                join.onAccepted(from, m);
            }
        } else if (message instanceof JoinRefused m) {
            if (phases.current() instanceof JoinProcess join) {
                join.onRefused(from, m);
            }
        } else if (message instanceof Election m) {
            messages.onElection(from, m);
        } else if (message instanceof Answer m) {
            messages.onAnswer(from, m);
        } else if (message instanceof Coordinator m) {
            messages.onCoordinator(from, m);
        } else if (message instanceof Table m) {
            messages.onTable(from, m);
        } else if (message instanceof Resign m) {
            messages.onResign(from, m);
        } else if (message instanceof Leave m) {
            messages.onLeave(from, m);
        } else {
            unknownMessage(from, message);
        }
    }

    /** A message type without a branch above: counted, and reported (logged and as an error event) once per type. */
    private void unknownMessage(PeerAddress from, BullyMessage message) {
        protocolErrors++;
        if (unknownTypes.add(message.getClass())) {
            String text = "[" + group + " " + self + "] protocol error: no handler for bully message type "
                    + message.getClass().getName() + " (from " + from + "); messages of this type are ignored";
            log.error(text);
            output.error(text, null);
        }
    }

    /**
     * Gives up leadership if held: listeners are told, then the members are told to elect without this node, which
     * stays out of elections for holdDown (or until another node leads).
     */
    @Override
    public void stepDown(boolean fromListener, CompletableFuture<Void> done) {
        Leading leading = phases.leading();
        if (leading == null) {
            done.complete(null);
            return;
        }
        view.holdOff(clock.nanoTime());
        view.memberSince = clock.nanoTime();
        long resigned = view.term();
        CompletableFuture<Void> told = leading.release(fromListener);
        phases.enterFollowing();
        phases.setLeader(null);
        told.whenComplete((ignored, error) -> scheduler.execute(() -> {
            if (!in(Phase.CLOSED)) {
                context.broadcast(new Resign(resigned, false));
            }
            done.complete(null);
        }));
        phases.publish();
    }

    /** Leaves the group: a leader resigns (after its listeners returned), a member tells every member it leaves. */
    @Override
    public void close(boolean fromListener, CompletableFuture<Void> closed) {
        if (in(Phase.CLOSED)) {
            closed.complete(null);
            return;
        }
        CompletableFuture<Void> told = CompletableFuture.completedFuture(null);
        List<PeerAddress> others = view.others();
        BullyMessage farewell = null;
        Leading leading = phases.leading();
        if (leading != null) {
            told = leading.release(fromListener);
            farewell = new Resign(view.term(), true);
        } else if (phases.member()) {
            farewell = new Leave(view.term());
        }
        phases.enter(new BullyPhase(Phase.CLOSED));
        tickTimer.cancel();
        detector.clear();
        view.leader = null;
        output.closed(group);
        BullyMessage last = farewell;
        told.whenComplete((ignored, error) -> scheduler.execute(() -> {
            if (last != null) {
                for (PeerAddress other : others) {
                    context.send(other, last);
                }
            }
            closed.complete(null);
        }));
    }

    /** Replaces this node's card; the leader updates its table, a member asks its leader to (a Join again). */
    void updateCard(MemberCard newCard) {
        context.card(newCard);
        Leading leading = phases.leading();
        if (leading != null) {
            leading.updateCard(newCard);
        } else if (phases.member() && view.leader != null) {
            context.send(view.leader, new Join(context.incarnation(), newCard));
        }
    }

    // ================================================================ periodic work

    private void scheduleTick() {
        tickTimer = scheduler.schedule(config.pingInterval(), this::tick);
    }

    private void tick() {
        if (in(Phase.CLOSED)) {
            return;
        }
        try {
            runTick();
        } catch (RuntimeException e) {
            tickFailures.report("the ping tick", e);
        } finally {
            // Whatever this tick did, the next one comes: one exception must not end failure detection for good.
            if (!in(Phase.CLOSED)) {
                scheduleTick();
            }
        }
    }

    /** Pings, the newer-term rule, the end of a hold-down, and the hold-down rule's take-over. */
    private void runTick() {
        PeerAddress leader = view.leader;
        if (phases.member()) {
            if (leader != null && !leader.equals(self) && detector.liveness(leader) == null) {
                view.watch();
            }
            detector.round();
        }
        long now = clock.nanoTime();
        long newer = view.unansweredNewerTerm(now);
        if (phases.member() && newer != 0) {
            phases.rejoin("heard of a newer term " + newer + " (this group's is " + view.term() + ")");
        }
        if (view.holdOffOver(now) && in(Phase.FOLLOWING) && view.leader == null) {
            phases.startElection();
        }
        if (in(Phase.FOLLOWING) && view.shouldPreempt(now)) {
            log.debug("{} (pid {}) takes over from {} after {} ms as a member", self, view.pid(), view.leader,
                    TimeUnit.NANOSECONDS.toMillis(now - view.memberSince));
            phases.startElection();
        }
        phases.publish();
    }

    /** The failure detector's verdicts: the leader updates its table, a member elects when its leader failed. */
    private final class Verdicts implements FailureDetector.Verdicts {

        @Override
        public long term() {
            return view.term();
        }

        @Override
        public long pid() {
            return view.pid();
        }

        @Override
        public void suspected(PeerAddress address) {
            Leading leading = phases.leading();
            if (leading != null) {
                leading.suspected(address);
            }
        }

        @Override
        public void recovered(PeerAddress address) {
            Leading leading = phases.leading();
            if (leading != null) {
                leading.recovered(address);
            }
        }

        @Override
        public void confirmedFailed(PeerAddress address) {
            Leading leading = phases.leading();
            if (leading != null) {
                leading.failed(address);
            } else if (address.equals(view.leader) && phases.member()) {
                log.debug("{} confirmed its leader {} failed", self, address);
                phases.setLeader(null);
                phases.startElection();
            }
        }
    }

    @Override
    public String toString() {
        return phases.toString();
    }
}

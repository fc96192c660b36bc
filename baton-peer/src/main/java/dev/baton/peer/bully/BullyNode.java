package dev.baton.peer.bully;

import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.LeaderInfo;
import dev.baton.core.Leadership;
import dev.baton.core.MemberState;
import dev.baton.core.NodeState;
import dev.baton.core.spi.EventDispatcher;
import dev.baton.core.spi.LeaseDeadline;
import dev.baton.core.store.LeaderRecord;
import dev.baton.core.store.LeaderRecordWrite;
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
import dev.baton.peer.bully.BullyMessage.JoinRefusal;
import dev.baton.peer.bully.BullyMessage.JoinRefused;
import dev.baton.peer.bully.BullyMessage.Leave;
import dev.baton.peer.bully.BullyMessage.Ping;
import dev.baton.peer.bully.BullyMessage.ProbeReport;
import dev.baton.peer.bully.BullyMessage.ProbeRequest;
import dev.baton.peer.bully.BullyMessage.Resign;
import dev.baton.peer.bully.BullyMessage.Table;
import dev.baton.peer.bully.FailureDetector.Liveness;
import dev.baton.peer.internal.NodeOutput;
import dev.baton.peer.internal.TickFailures;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
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
 * <p>Phases: {@code JOINING} (the seed's join loop, {@link JoinProcess}; no failure detector yet), {@code FOUNDING}
 * (no leader found: becomes leader with process id 1), {@code FOLLOWING}, {@code ELECTING} (sent ELECTION to the
 * higher processes), {@code AWAITING} (a higher process answered, or another node won the store: waits for its
 * COORDINATOR), {@code CLAIMING} (reads the store and writes the next term), {@code LEADING}, {@code CLOSED}. Members run
 * the {@link FailureDetector}; the leader keeps the {@link GroupTable}.
 *
 * <p>Terms: every leadership is a term taken from the leader store by compare-and-set, so no term ever has two
 * leaders; the next term is above the stored one, above every term this node has seen, and at least the wall clock
 * in µs (see {@code nextTerm}), so a store restored from an older copy does not make a term come round again. Every message carries the sender's group term; a node that hears a newer term than its own for a whole
 * ping interval without learning its leader leaves its group and joins again through the store (that is how the
 * groups of a healed partition merge). A leader stops when it learns of a newer term (COORDINATOR, the store) or
 * cannot confirm its own in the store for leadershipValidity.
 */
final class BullyNode {

    private static final Logger log = LoggerFactory.getLogger(BullyNode.class);

    enum Phase { CREATED, JOINING, FOUNDING, FOLLOWING, ELECTING, AWAITING, CLAIMING, LEADING, CLOSED }

    private final String group;
    private final PeerAddress self;
    private final String selfId;
    private final BullyConfig config;
    private final Transport<BullyMessage> transport;
    private final LeaderStoreCalls store;
    private final Clock clock;
    private final Scheduler scheduler;
    private final Random random;
    private final NodeOutput output;
    private final TickFailures tickFailures;
    private final boolean standalone;
    private final long incarnation;
    private final FailureDetector detector = new FailureDetector(this);
    private final GroupTable table = new GroupTable();

    private volatile MemberCard card;
    private Phase phase = Phase.CREATED;
    private long epoch;
    private volatile long pid;
    private long term;
    private long highestTerm;
    private PeerAddress leader;
    private long leaderPid;
    private PeerAddress excluded;
    private long memberSince;
    private boolean holdingOff;
    private long holdOffUntil;
    private long heardTerm;
    private long heardTermSince;
    private long awaitedTerm;
    private Leadership leadership;
    // The only handle that moves the leadership's deadline; listeners get the read-only leadership.
    private LeaseDeadline leadershipDeadline;
    private JoinProcess join;
    private String problem;
    private Cancellable tickTimer = Cancellable.NONE;
    private Cancellable phaseTimer = Cancellable.NONE;
    private Cancellable storeTimer = Cancellable.NONE;
    private Cancellable deadlineTimer = Cancellable.NONE;

    BullyNode(String group, PeerAddress self, MemberCard card, BullyConfig config, Transport<BullyMessage> transport,
            LeaderStoreCalls store, boolean standalone, Clock clock, Scheduler scheduler, Random random,
            EventDispatcher events) {
        this.group = group;
        this.self = self;
        this.selfId = self.format();
        this.card = card;
        this.config = config;
        this.transport = transport;
        this.store = store;
        this.standalone = standalone;
        this.clock = clock;
        this.scheduler = scheduler;
        this.random = random;
        this.output = new NodeOutput(events, clock);
        this.tickFailures = new TickFailures(log, clock, output, "[" + group + " " + self + "]");
        long draw;
        do {
            draw = random.nextLong();
        } while (draw == 0);
        this.incarnation = draw;
    }

    // ================================================================ accessors for the parts and the adapter

    BullyConfig config() {
        return config;
    }

    PeerAddress self() {
        return self;
    }

    Scheduler scheduler() {
        return scheduler;
    }

    Random random() {
        return random;
    }

    LeaderStoreCalls store() {
        return store;
    }

    long epoch() {
        return epoch;
    }

    long incarnation() {
        return incarnation;
    }

    MemberCard card() {
        return card;
    }

    NodeOutput output() {
        return output;
    }

    Phase phase() {
        return phase;
    }

    /** This node's process id in its group, 0 before it first joined. */
    long pid() {
        return pid;
    }

    /** The term of the group this node belongs to (the leader's term), 0 before it first joined. */
    long term() {
        return term;
    }

    /** The leader this node follows or is, or null. */
    PeerAddress leader() {
        return leader;
    }

    /** The member table this node holds: its own while it leads, else its leader's copy. */
    List<GroupMember> members() {
        return table.snapshot();
    }

    /** What this node's detector believes of {@code address} (for tests). */
    Liveness liveness(PeerAddress address) {
        return detector.liveness(address);
    }

    private boolean member() {
        return switch (phase) {
            case FOLLOWING, ELECTING, AWAITING, CLAIMING, LEADING -> true;
            default -> false;
        };
    }

    // ================================================================ inputs

    void start() {
        if (phase != Phase.CREATED) {
            return;
        }
        output.roundStarted();
        scheduleTick();
        if (standalone) {
            // Stand-alone mode (seed: self == leader): nobody else can find this group, so there is nothing to
            // look for; found it at once.
            foundGroup(null);
        } else {
            beginJoin();
        }
        publish();
    }

    void onMessage(PeerAddress from, BullyMessage message) {
        if (phase == Phase.CREATED || phase == Phase.CLOSED || from.equals(self)) {
            return;
        }
        dispatch(from, message);
        publish();
    }

    private void dispatch(PeerAddress from, BullyMessage message) {
        if (message instanceof Ping m) {
            onPing(from, m);
        } else if (message instanceof Ack m) {
            onAck(from, m);
        } else if (message instanceof ProbeRequest m) {
            if (member()) {
                detector.onProbeRequest(from, m);
            }
        } else if (message instanceof ProbeReport m) {
            if (member()) {
                detector.onProbeReport(m);
            }
        } else if (message instanceof Join m) {
            onJoin(from, m);
        } else if (message instanceof JoinAccepted m) {
            if (phase == Phase.JOINING) {
                join.onAccepted(from, m);
            }
        } else if (message instanceof JoinRefused m) {
            if (phase == Phase.JOINING) {
                join.onRefused(from, m);
            }
        } else if (message instanceof Election m) {
            onElection(from, m);
        } else if (message instanceof Answer m) {
            onAnswer(from, m);
        } else if (message instanceof Coordinator m) {
            onCoordinator(from, m);
        } else if (message instanceof Table m) {
            onTable(from, m);
        } else if (message instanceof Resign m) {
            onResign(from, m);
        } else if (message instanceof Leave m) {
            onLeave(from, m);
        }
    }

    /**
     * Gives up leadership if held: listeners are told, then the members are told to elect without this node, which
     * stays out of elections for holdDown (or until another node leads).
     */
    void stepDown(boolean fromListener, CompletableFuture<Void> done) {
        if (phase != Phase.LEADING) {
            done.complete(null);
            return;
        }
        holdingOff = true;
        holdOffUntil = clock.nanoTime() + config.holdDown().toNanos();
        memberSince = clock.nanoTime();
        long resigned = term;
        CompletableFuture<Void> told = release(fromListener);
        enterPhase(Phase.FOLLOWING);
        setLeader(null);
        told.whenComplete((ignored, error) -> scheduler.execute(() -> {
            if (phase != Phase.CLOSED) {
                broadcast(new Resign(resigned, false));
            }
            done.complete(null);
        }));
        publish();
    }

    /** Leaves the group: a leader resigns (after its listeners returned), a member tells every member it leaves. */
    void close(boolean fromListener, CompletableFuture<Void> closed) {
        if (phase == Phase.CLOSED) {
            closed.complete(null);
            return;
        }
        CompletableFuture<Void> told = CompletableFuture.completedFuture(null);
        List<PeerAddress> others = others();
        BullyMessage farewell = null;
        if (phase == Phase.LEADING) {
            told = release(fromListener);
            farewell = new Resign(term, true);
        } else if (member()) {
            farewell = new Leave(term);
        }
        if (join != null) {
            join.cancel();
        }
        enterPhase(Phase.CLOSED);
        tickTimer.cancel();
        detector.clear();
        leader = null;
        output.closed(group);
        BullyMessage last = farewell;
        told.whenComplete((ignored, error) -> scheduler.execute(() -> {
            if (last != null) {
                for (PeerAddress other : others) {
                    send(other, last);
                }
            }
            closed.complete(null);
        }));
    }

    /** Replaces this node's card; the leader updates its table, a member asks its leader to (a Join again). */
    void updateCard(MemberCard newCard) {
        card = newCard;
        if (phase == Phase.LEADING) {
            if (table.updateCard(self, newCard)) {
                broadcastTable();
            }
        } else if (member() && leader != null) {
            send(leader, new Join(incarnation, newCard));
        }
    }

    // ================================================================ periodic work

    private void scheduleTick() {
        tickTimer = scheduler.schedule(config.pingInterval(), this::tick);
    }

    private void tick() {
        if (phase == Phase.CLOSED) {
            return;
        }
        try {
            runTick();
        } catch (RuntimeException e) {
            tickFailures.report("the ping tick", e);
        } finally {
            // Whatever this tick did, the next one comes: one exception must not end failure detection for good.
            if (phase != Phase.CLOSED) {
                scheduleTick();
            }
        }
    }

    private void runTick() {
        if (member()) {
            if (leader != null && !leader.equals(self) && detector.liveness(leader) == null) {
                watch();
            }
            detector.round();
        }
        long now = clock.nanoTime();
        if (member() && heardTerm > term && now - heardTermSince >= config.pingInterval().toNanos()) {
            rejoin("heard of a newer term " + heardTerm + " (this group's is " + term + ")");
        }
        if (holdingOff && now - holdOffUntil >= 0) {
            holdingOff = false;
            if (phase == Phase.FOLLOWING && leader == null) {
                startElection();
            }
        }
        if (phase == Phase.FOLLOWING && shouldPreempt(now)) {
            log.debug("{} (pid {}) takes over from {} after {} ms as a member", self, pid, leader,
                    TimeUnit.NANOSECONDS.toMillis(now - memberSince));
            startElection();
        }
        publish();
    }

    /**
     * The hold-down rule: a member takes over from a healthy leader it outranks only if it is the highest live process
     * it knows of and has been a member without a break for holdDown.
     */
    private boolean shouldPreempt(long now) {
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

    // ================================================================ joining

    private void beginJoin() {
        enterPhase(Phase.JOINING);
        join = new JoinProcess(this, epoch);
        join.start();
    }

    /** The leader admitted this node (seed: the Ack with a PID); the failure detector starts now. */
    void joined(PeerAddress from, JoinAccepted accepted) {
        enterPhase(Phase.FOLLOWING);
        pid = accepted.pid();
        leaderPid = accepted.leaderPid();
        observeTerm(accepted.term());
        term = accepted.term();
        table.replace(accepted.revision(), accepted.nextPid(), accepted.members());
        memberSince = clock.nanoTime();
        problem = null;
        log.debug("{} joined group {} led by {} (term {}) as pid {}", self, group, from, term, pid);
        setLeader(from);
        watch();
        output.roundCompleted(false);
    }

    /** The join loop gave up after the leader kept refusing: report it and start over (the seed exits instead). */
    void joinFailed(String reason, LeaderRecord record) {
        String message = "could not join group " + group + (record != null ? " through " + record.address() : "")
                + " after " + config.joinAttempts() + " attempts: " + reason + "; starting over";
        reportError(message);
        beginJoin();
    }

    /**
     * No leader found (seed: "A group-leader is not found"): this node takes process id 1 and writes itself into the
     * store with the next term. If the store meanwhile names another leader, or refuses the write, it joins again.
     */
    void foundGroup(LeaderRecord lastSeen) {
        enterPhase(Phase.FOUNDING);
        long e = epoch;
        store.read(record -> {
            if (epoch != e) {
                return;
            }
            if (record.isPresent() && (lastSeen == null || record.get().term() != lastSeen.term())
                    && !standalone) {
                // A leader appeared since the join loop last looked: join it instead.
                beginJoin();
                return;
            }
            long next = nextTerm(record);
            long issued = clock.nanoTime();
            store.write(new LeaderRecord(group, next, selfId, 1, selfId), write -> {
                if (epoch != e) {
                    return;
                }
                if (write.accepted()) {
                    pid = 1;
                    table.found(self, 1, incarnation, card, clock.instant().toEpochMilli());
                    memberSince = clock.nanoTime();
                    becomeLeader(next, issued);
                } else {
                    observeTerm(write.current().term());
                    beginJoin();
                }
            }, failure -> foundingFailed(e, failure));
        }, failure -> foundingFailed(e, failure));
    }

    private void foundingFailed(long e, String failure) {
        if (epoch != e) {
            return;
        }
        storeFailed(failure);
        phaseTimer = scheduler.schedule(config.electionTimeout(), () -> {
            if (epoch == e) {
                if (standalone) {
                    foundGroup(null);
                } else {
                    beginJoin();
                }
            }
        });
    }

    /** Leaves the current group (a newer term exists) and joins again through the store; the process id is kept. */
    private void rejoin(String reason) {
        log.debug("{} rejoins group {}: {}", self, group, reason);
        if (phase == Phase.LEADING) {
            lose(LossReason.LEASE_TAKEN);
        }
        detector.clear();
        table.clear();
        heardTerm = 0;
        setLeader(null);
        beginJoin();
    }

    // ================================================================ failure detector callbacks

    void suspected(PeerAddress address) {
        if (phase == Phase.LEADING) {
            GroupMember before = table.setState(address, MemberState.UNREACHABLE);
            if (before != null) {
                output.memberStateChanged(GroupTable.nodeInfo(table.get(address), self), before.state(),
                        MemberState.UNREACHABLE);
                broadcastTable();
            }
        }
    }

    void recovered(PeerAddress address) {
        if (phase == Phase.LEADING) {
            GroupMember entry = table.get(address);
            if (entry != null && entry.state() == MemberState.UNREACHABLE) {
                activate(address);
            }
        }
    }

    void confirmedFailed(PeerAddress address) {
        if (phase == Phase.LEADING) {
            removeMember(address);
        } else if (address.equals(leader) && member()) {
            log.debug("{} confirmed its leader {} failed", self, address);
            setLeader(null);
            startElection();
        }
    }

    // ================================================================ the failure detector's messages

    private void onPing(PeerAddress from, Ping ping) {
        // A node that is (re)joining is not a member: it answers without a process id, so nobody counts it alive.
        send(from, new Ack(term, member() ? pid : 0, ping.probeId(), table.revision()));
        if (!member()) {
            return;
        }
        noteTerm(ping.term());
        if (phase == Phase.LEADING && ping.term() == term && ping.probeId() == 0) {
            if (!table.contains(from, ping.senderPid())) {
                // It believes it is a member but this leader removed it: the table tells it so, and it rejoins.
                send(from, tableMessage());
            } else {
                activate(from);
            }
        }
    }

    private void onAck(PeerAddress from, Ack ack) {
        if (!member()) {
            return;
        }
        detector.onAck(from, ack);
        noteTerm(ack.term());
        if (phase == Phase.LEADING && ack.term() == term && table.contains(from, ack.pid())) {
            activate(from);
            if (ack.revision() < table.revision()) {
                send(from, tableMessage());
            }
        }
    }

    /** A newer term in a message: if no COORDINATOR of it arrives within a ping interval, this node rejoins. */
    private void noteTerm(long heard) {
        if (heard > term && heard > heardTerm) {
            if (heardTerm <= term) {
                heardTermSince = clock.nanoTime();
            }
            heardTerm = heard;
        }
        observeTerm(heard);
    }

    private void observeTerm(long seen) {
        highestTerm = Math.max(highestTerm, seen);
    }

    // ================================================================ the leader's table

    private void onJoin(PeerAddress from, Join request) {
        if (phase != Phase.LEADING) {
            send(from, new JoinRefused(term, JoinRefusal.NOT_LEADER));
            if (member() && from.equals(leader)) {
                // This node's own leader is joining: it no longer leads (the store names someone else, perhaps
                // this node by a claim it gave up on). Elect, rather than wait for the failure detector.
                setLeader(null);
                if (phase == Phase.FOLLOWING) {
                    startElection();
                }
            }
            return;
        }
        GroupMember existing = table.get(from);
        if (existing != null && existing.incarnation() != request.incarnation()) {
            send(from, new JoinRefused(term, JoinRefusal.ADDRESS_IN_USE));
            return;
        }
        if (existing == null) {
            GroupMember admitted = table.admit(from, request.incarnation(), request.card(),
                    clock.instant().toEpochMilli());
            watch();
            output.memberJoined(GroupTable.nodeInfo(admitted, self));
            log.debug("{} admitted {} as pid {}", self, from, admitted.pid());
            Table update = tableMessage();
            for (PeerAddress other : others()) {
                if (!other.equals(from)) {
                    send(other, update);
                }
            }
        } else if (table.updateCard(from, request.card())) {
            broadcastTable();
        }
        GroupMember member = table.get(from);
        send(from, new JoinAccepted(term, member.pid(), pid, table.revision(), table.nextPid(), table.snapshot()));
    }

    /** A joining member answered for the first time, or an unreachable one is heard again. */
    private void activate(PeerAddress address) {
        GroupMember entry = table.get(address);
        if (entry == null || (entry.state() != MemberState.JOINING && entry.state() != MemberState.UNREACHABLE)) {
            return;
        }
        GroupMember before = table.setState(address, MemberState.ACTIVE);
        output.memberStateChanged(GroupTable.nodeInfo(table.get(address), self), before.state(), MemberState.ACTIVE);
        broadcastTable();
    }

    private void removeMember(PeerAddress address) {
        GroupMember gone = table.remove(address);
        detector.untrack(address);
        if (gone != null) {
            log.debug("{} removed {} (pid {})", self, address, gone.pid());
            output.memberRemoved(address.format());
            broadcastTable();
        }
    }

    private void onLeave(PeerAddress from, Leave leave) {
        if (!member() || leave.term() != term) {
            return;
        }
        if (phase == Phase.LEADING) {
            GroupMember before = table.setState(from, MemberState.LEAVING);
            if (before != null) {
                output.memberStateChanged(GroupTable.nodeInfo(table.get(from), self), before.state(),
                        MemberState.LEAVING);
                removeMember(from);
            }
        } else {
            table.forget(from);
            detector.untrack(from);
            if (from.equals(leader)) {
                // The node this one took for its leader had already stopped leading (this node missed the news).
                setLeader(null);
                if (phase == Phase.FOLLOWING) {
                    startElection();
                }
            }
        }
    }

    private void onTable(PeerAddress from, Table update) {
        if (!member()) {
            return;
        }
        if (phase == Phase.LEADING || !from.equals(leader) || update.term() != term) {
            noteTerm(update.term());
            return;
        }
        if (update.revision() <= table.revision()) {
            return;
        }
        boolean listed = update.members().stream().anyMatch(m -> m.address().equals(self) && m.pid() == pid);
        if (!listed) {
            rejoin("the leader's table does not list this node");
            return;
        }
        table.replace(update.revision(), update.nextPid(), update.members());
        watch();
    }

    /** The detector watches the table, and the leader even before the table lists it. */
    private void watch() {
        detector.track(table.members(), leader, leaderPid);
    }

    private Table tableMessage() {
        return new Table(term, table.revision(), table.nextPid(), table.snapshot());
    }

    private void broadcastTable() {
        broadcast(tableMessage());
    }

    // ================================================================ the election

    /** The bully order: the higher process id wins; equal ids (two lineages) are ordered by address. */
    static boolean outranks(long pidA, PeerAddress a, long pidB, PeerAddress b) {
        return pidA != pidB ? pidA > pidB : a.compareTo(b) > 0;
    }

    /** Members that outrank this node and are not confirmed failed, nor excluded (a resigned leader). */
    private List<GroupMember> higherLive() {
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

    /** ELECTION to every higher live process; with none, or no ANSWER within electionTimeout, this node claims. */
    private void startElection() {
        if (holdingOff || !member() || phase == Phase.LEADING) {
            return;
        }
        enterPhase(Phase.ELECTING);
        List<GroupMember> higher = higherLive();
        if (higher.isEmpty()) {
            claim();
            return;
        }
        for (GroupMember member : higher) {
            send(member.address(), new Election(term, pid));
        }
        long e = epoch;
        phaseTimer = scheduler.schedule(config.electionTimeout(), () -> {
            if (epoch == e && phase == Phase.ELECTING) {
                claim();
            }
        });
    }

    private void onElection(PeerAddress from, Election election) {
        if (!member()) {
            return;
        }
        if (election.term() > term) {
            noteTerm(election.term());
            return;
        }
        if (election.term() < term) {
            // The sender's group is older: the answer tells it so.
            send(from, new Answer(term, pid));
            return;
        }
        if (holdingOff || !outranks(pid, self, election.pid(), from)) {
            return;
        }
        send(from, new Answer(term, pid));
        if (phase == Phase.LEADING) {
            send(from, new Coordinator(term, pid));
        } else if (phase == Phase.FOLLOWING) {
            startElection();
        }
    }

    private void onAnswer(PeerAddress from, Answer answer) {
        if (!member()) {
            return;
        }
        if (answer.term() > term) {
            noteTerm(answer.term());
            return;
        }
        if (phase == Phase.ELECTING && answer.term() == term && outranks(answer.pid(), from, pid, self)) {
            await();
        }
    }

    /** A higher process took the election over: wait for its COORDINATOR, else run the election again. */
    private void await() {
        enterPhase(Phase.AWAITING);
        long e = epoch;
        phaseTimer = scheduler.schedule(config.coordinatorTimeout(), () -> {
            if (epoch == e && phase == Phase.AWAITING) {
                enterPhase(Phase.FOLLOWING);
                startElection();
            }
        });
    }

    /**
     * No higher process answered: take the next term from the store. The store is read first; if it names a newer
     * leadership than this group's, this node does not overwrite it: it waits for that leader if it is a member
     * here, and joins it otherwise.
     */
    private void claim() {
        enterPhase(Phase.CLAIMING);
        long e = epoch;
        store.read(record -> {
            if (epoch != e) {
                return;
            }
            if (record.isPresent() && newerLeadership(record.get()) && record.get().term() != awaitedTerm) {
                yieldTo(record.get());
                return;
            }
            long next = nextTerm(record);
            // The accepted write proves the term from the moment it was sent: the leadership is valid from then.
            long issued = clock.nanoTime();
            store.write(new LeaderRecord(group, next, selfId, pid, selfId), write -> {
                if (epoch != e) {
                    return;
                }
                if (write.accepted()) {
                    becomeLeader(next, issued);
                } else {
                    yieldTo(write.current());
                }
            }, failure -> claimFailed(e, failure));
        }, failure -> claimFailed(e, failure));
    }

    private boolean newerLeadership(LeaderRecord record) {
        return record.term() > term && !record.leaderId().equals(selfId);
    }

    /**
     * The store names a newer leadership than this group's. If its holder is a member here (it won a concurrent
     * claim), wait once for its COORDINATOR; a record whose holder never announces itself (it died, or gave up on a
     * claim whose write went through) is then overwritten. A holder outside this group is joined.
     */
    private void yieldTo(LeaderRecord record) {
        observeTerm(record.term());
        PeerAddress holder = addressOf(record);
        if (holder != null && table.get(holder) != null) {
            awaitedTerm = record.term();
            await();
        } else {
            rejoin("the leader store names a newer leader " + record.address() + " (term " + record.term() + ")");
        }
    }

    private void claimFailed(long e, String failure) {
        if (epoch != e) {
            return;
        }
        storeFailed(failure);
        enterPhase(Phase.AWAITING);
        long retry = epoch;
        phaseTimer = scheduler.schedule(config.electionTimeout(), () -> {
            if (epoch == retry && phase == Phase.AWAITING) {
                enterPhase(Phase.FOLLOWING);
                startElection();
            }
        });
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
    private long nextTerm(Optional<LeaderRecord> record) {
        long counter = Math.max(record.map(LeaderRecord::term).orElse(0L), highestTerm) + 1;
        return Math.max(counter, epochMicros(clock.instant()));
    }

    private static long epochMicros(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000);
    }

    private void onCoordinator(PeerAddress from, Coordinator coordinator) {
        if (!member()) {
            return;
        }
        if (coordinator.term() < term) {
            if (phase == Phase.LEADING) {
                send(from, new Coordinator(term, pid));
            }
            return;
        }
        if (coordinator.term() == term) {
            if (phase != Phase.LEADING) {
                follow(from, coordinator.term(), coordinator.pid());
            }
            return;
        }
        if (phase == Phase.LEADING) {
            lose(LossReason.LEASE_TAKEN);
        }
        follow(from, coordinator.term(), coordinator.pid());
    }

    /** {@code from} leads {@code newTerm} (its COORDINATOR): this node follows it. */
    private void follow(PeerAddress from, long newTerm, long newLeaderPid) {
        if (phase != Phase.FOLLOWING || !from.equals(leader) || newTerm != term) {
            enterPhase(Phase.FOLLOWING);
        }
        observeTerm(newTerm);
        term = newTerm;
        if (heardTerm <= term) {
            heardTerm = 0;
        }
        excluded = null;
        if (holdingOff) {
            holdingOff = false;
        }
        leaderPid = newLeaderPid;
        setLeader(from);
        watch();
        output.roundCompleted(false);
    }

    private void onResign(PeerAddress from, Resign resign) {
        if (!member() || phase == Phase.LEADING || !from.equals(leader) || resign.term() != term) {
            return;
        }
        setLeader(null);
        excluded = from;
        if (resign.leaving()) {
            table.forget(from);
            detector.untrack(from);
        }
        if (phase == Phase.FOLLOWING) {
            startElection();
        }
    }

    // ================================================================ leading

    private void becomeLeader(long newTerm, long confirmedAt) {
        enterPhase(Phase.LEADING);
        observeTerm(newTerm);
        term = newTerm;
        heardTerm = 0;
        excluded = null;
        problem = null;
        long wall = clock.instant().toEpochMilli();
        List<GroupMember> dropped = table.takeOver(self, pid, incarnation, card, detector.failed(), wall);
        watch();
        leadershipDeadline = new LeaseDeadline(confirmedAt + config.leadershipValidity().toNanos());
        leadership = leadershipDeadline.leadership(group, selfId, term, clock, output::holds);
        log.debug("{} leads group {} with term {} (pid {})", self, group, term, pid);
        setLeader(self);
        output.acquired(leadership);
        output.roundCompleted(true);
        for (GroupMember gone : dropped) {
            output.memberRemoved(gone.address().format());
        }
        broadcast(new Coordinator(term, pid));
        broadcastTable();
        scheduleStoreCheck();
        scheduleDeadline();
    }

    /**
     * Reads the record back every storeCheckInterval (sooner while the leadership has less than two intervals left,
     * e.g. after a slow first write): confirms the term, or finds it superseded.
     */
    private void scheduleStoreCheck() {
        long e = epoch;
        long left = leadership.deadlineNanos() - clock.nanoTime();
        Duration delay = config.storeCheckInterval();
        if (left < delay.toNanos() * 2) {
            delay = Duration.ofNanos(Math.max(0, left / 3));
        }
        storeTimer = scheduler.schedule(delay, () -> {
            if (epoch == e && phase == Phase.LEADING) {
                checkStore(e);
            }
        });
    }

    private void checkStore(long e) {
        long issued = clock.nanoTime();
        store.read(record -> {
            if (epoch != e) {
                return;
            }
            if (record.isPresent() && record.get().term() > term) {
                rejoin("the leader store names a newer leader " + record.get().address() + " (term "
                        + record.get().term() + ")");
                return;
            }
            if (record.isPresent() && record.get().term() == term && record.get().leaderId().equals(selfId)) {
                confirmed(issued);
                return;
            }
            // The store lost the record (or went back): write it again; the compare-and-set decides.
            store.write(new LeaderRecord(group, term, selfId, pid, selfId), write -> {
                if (epoch != e) {
                    return;
                }
                if (write.accepted()) {
                    confirmed(issued);
                } else {
                    rejoin("the leader store refused this leader's record in favour of " + write.current());
                }
            }, failure -> checkFailed(e, failure));
        }, failure -> checkFailed(e, failure));
    }

    private void confirmed(long issued) {
        leadershipDeadline.extendTo(issued + config.leadershipValidity().toNanos());
        problem = null;
        scheduleDeadline();
        scheduleStoreCheck();
        publish();
    }

    private void checkFailed(long e, String failure) {
        if (epoch != e) {
            return;
        }
        storeFailed(failure);
        scheduleStoreCheck();
        publish();
    }

    private void scheduleDeadline() {
        deadlineTimer.cancel();
        long e = epoch;
        long wait = Math.max(0, leadership.deadlineNanos() - clock.nanoTime());
        deadlineTimer = scheduler.schedule(Duration.ofNanos(wait), () -> {
            if (epoch == e && phase == Phase.LEADING && leadership.deadlineNanos() - clock.nanoTime() <= 0) {
                expired();
            }
        });
    }

    /** The term could not be confirmed in the store in time: stop leading, and claim a new term once it answers. */
    private void expired() {
        long lapsed = term;
        reportError("leadership of term " + lapsed + " lapsed: the leader store did not confirm it for "
                + config.leadershipValidity().toMillis() + " ms");
        lose(LossReason.EXPIRED_LOCALLY);
        enterPhase(Phase.FOLLOWING);
        setLeader(null);
        // The members keep this node as their leader until it claims again (or fails): it is still the highest.
        startElection();
    }

    /** Unpublishes the leadership and tells the listeners (their future completes once they have returned). */
    private CompletableFuture<Void> lose(LossReason reason) {
        Leadership held = leadership;
        leadership = null;
        leadershipDeadline = null;
        storeTimer.cancel();
        deadlineTimer.cancel();
        return output.lost(term, reason, held != null);
    }

    /** stepDown/close: listeners are told first; the caller tells the members once they have returned. */
    private CompletableFuture<Void> release(boolean fromListener) {
        CompletableFuture<Void> delivered = lose(LossReason.RELEASED);
        if (fromListener) {
            // A listener waiting for this would wait for itself.
            return CompletableFuture.completedFuture(null);
        }
        // Listeners get at most coordinatorTimeout: a stuck one must not keep the group without a leader.
        CompletableFuture<Void> bounded = new CompletableFuture<>();
        Cancellable limit = scheduler.schedule(config.coordinatorTimeout(), () -> bounded.complete(null));
        delivered.whenComplete((ignored, error) -> {
            limit.cancel();
            bounded.complete(null);
        });
        return bounded;
    }

    // ================================================================ plumbing

    void send(PeerAddress to, BullyMessage message) {
        transport.send(to, message);
    }

    private List<PeerAddress> others() {
        List<PeerAddress> others = new ArrayList<>();
        for (GroupMember member : table.members()) {
            if (!member.address().equals(self)) {
                others.add(member.address());
            }
        }
        return others;
    }

    private void broadcast(BullyMessage message) {
        for (PeerAddress other : others()) {
            send(other, message);
        }
    }

    private void enterPhase(Phase next) {
        phase = next;
        epoch++;
        phaseTimer.cancel();
        if (join != null) {
            join.cancel();
            join = null;
        }
    }

    private void setLeader(PeerAddress who) {
        LeaderInfo shown = output.leader();
        boolean changed = who == null ? shown != null
                : shown == null || !shown.nodeId().equals(who.format()) || shown.term() != term;
        leader = who;
        if (who == null && changed) {
            output.roundStarted();
        }
        if (changed) {
            output.leaderChanged(who == null ? null : new LeaderInfo(who.format(), term));
        }
    }

    /** A leader-store call failed: shown as the problem; reported once per streak of failures. */
    void storeFailed(String failure) {
        boolean first = problem == null || !problem.startsWith("leader store");
        problem = failure;
        if (first) {
            output.error(failure, null);
        }
    }

    private void reportError(String message) {
        problem = message;
        output.error(message, null);
    }

    private static PeerAddress addressOf(LeaderRecord record) {
        try {
            return PeerAddress.parse(record.address());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private void publish() {
        NodeState state = switch (phase) {
            case LEADING -> leadership != null && leadership.isValid() ? NodeState.LEADER : NodeState.CANDIDATE;
            case ELECTING, AWAITING, CLAIMING, FOUNDING -> NodeState.CANDIDATE;
            case CLOSED -> NodeState.STOPPED;
            default -> NodeState.FOLLOWER;
        };
        String shown = problem;
        if (shown == null && phase == Phase.JOINING && join != null) {
            shown = join.describe();
        } else if (shown == null && member() && leader == null) {
            shown = "no leader: election running";
        }
        if (phase != Phase.CLOSED) {
            output.snapshot(state, shown);
        }
    }

    @Override
    public String toString() {
        return phase + " pid=" + pid + " term=" + term + " leader=" + leader + " members=" + table.size();
    }
}

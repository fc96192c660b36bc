package dev.baton.peer.bully;

import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.peer.bully.BullyMessage.Ack;
import dev.baton.peer.bully.BullyMessage.Answer;
import dev.baton.peer.bully.BullyMessage.Coordinator;
import dev.baton.peer.bully.BullyMessage.Election;
import dev.baton.peer.bully.BullyMessage.Join;
import dev.baton.peer.bully.BullyMessage.JoinRefusal;
import dev.baton.peer.bully.BullyMessage.JoinRefused;
import dev.baton.peer.bully.BullyMessage.Leave;
import dev.baton.peer.bully.BullyMessage.Ping;
import dev.baton.peer.bully.BullyMessage.Resign;
import dev.baton.peer.bully.BullyMessage.Table;
import dev.baton.peer.bully.BullyNode.Phase;
import dev.baton.peer.transport.PeerAddress;

/**
 * What a node does with the messages every member handles, whatever its phase: the term rules (a message of a newer
 * term is noted, an older group is told of this one), the failure detector's pings, the election's ELECTION, ANSWER
 * and COORDINATOR, the leader's table and resignation, a member leaving. What only the leader does is handed to its
 * {@link Leading} phase, what only an election does to {@link Candidacy}. Confined to the node's scheduler.
 */
final class MemberMessages {

    private final PhaseContext context;
    private final GroupView view;
    private final Phases phases;
    private final PeerAddress self;

    MemberMessages(PhaseContext context, GroupView view, Phases phases) {
        this.context = context;
        this.view = view;
        this.phases = phases;
        this.self = context.self();
    }

    // ---- the failure detector's messages

    void onPing(PeerAddress from, Ping ping) {
        boolean member = phases.member();
        // A node that is (re)joining is not a member: it answers without a process id, so nobody counts it alive.
        context.send(from, new Ack(view.term(), member ? view.pid() : 0, ping.probeId(), view.table.revision()));
        if (!member) {
            return;
        }
        noteTerm(ping.term());
        Leading leading = phases.leading();
        if (leading != null && ping.term() == view.term() && ping.probeId() == 0) {
            leading.onMemberPing(from, ping.senderPid());
        }
    }

    void onAck(PeerAddress from, Ack ack) {
        if (!phases.member()) {
            return;
        }
        view.detector().onAck(from, ack);
        noteTerm(ack.term());
        Leading leading = phases.leading();
        if (leading != null && ack.term() == view.term() && view.table.contains(from, ack.pid())) {
            leading.onMemberAck(from, ack.revision());
        }
    }

    // ---- joining

    void onJoin(PeerAddress from, Join request) {
        Leading leading = phases.leading();
        if (leading != null) {
            leading.onJoin(from, request);
            return;
        }
        context.send(from, new JoinRefused(view.term(), JoinRefusal.NOT_LEADER));
        if (phases.member() && from.equals(view.leader)) {
            // This node's own leader is joining: it no longer leads (the store names someone else, perhaps this
            // node by a claim it gave up on). Elect, rather than wait for the failure detector.
            leaderGone();
        }
    }

    // ---- the election

    void onElection(PeerAddress from, Election election) {
        if (!phases.member()) {
            return;
        }
        if (election.term() > view.term()) {
            noteTerm(election.term());
            return;
        }
        if (election.term() < view.term()) {
            // The sender's group is older: the answer tells it so.
            context.send(from, new Answer(view.term(), view.pid()));
            return;
        }
        if (view.holdingOff() || !GroupView.outranks(view.pid(), self, election.pid(), from)) {
            return;
        }
        context.send(from, new Answer(view.term(), view.pid()));
        if (phases.in(Phase.LEADING)) {
            context.send(from, new Coordinator(view.term(), view.pid()));
        } else if (phases.in(Phase.FOLLOWING)) {
            phases.startElection();
        }
    }

    void onAnswer(PeerAddress from, Answer answer) {
        if (!phases.member()) {
            return;
        }
        if (answer.term() > view.term()) {
            noteTerm(answer.term());
            return;
        }
        if (phases.current() instanceof Candidacy.Electing electing) {
            electing.onAnswer(from, answer);
        }
    }

    void onCoordinator(PeerAddress from, Coordinator coordinator) {
        if (!phases.member()) {
            return;
        }
        Leading leading = phases.leading();
        if (coordinator.term() < view.term()) {
            if (leading != null) {
                context.send(from, new Coordinator(view.term(), view.pid()));
            }
            return;
        }
        if (coordinator.term() == view.term()) {
            if (leading == null) {
                phases.follow(from, coordinator.term(), coordinator.pid());
            }
            return;
        }
        if (leading != null) {
            leading.lose(LossReason.LEASE_TAKEN);
        }
        phases.follow(from, coordinator.term(), coordinator.pid());
    }

    // ---- the leader's table and farewells

    void onTable(PeerAddress from, Table update) {
        if (!phases.member()) {
            return;
        }
        if (phases.in(Phase.LEADING) || !from.equals(view.leader) || update.term() != view.term()) {
            noteTerm(update.term());
            return;
        }
        if (update.revision() <= view.table.revision()) {
            return;
        }
        long pid = view.pid();
        boolean listed = update.members().stream().anyMatch(m -> m.address().equals(self) && m.pid() == pid);
        if (!listed) {
            phases.rejoin("the leader's table does not list this node");
            return;
        }
        view.table.replace(update.revision(), update.nextPid(), update.members());
        view.watch();
    }

    void onResign(PeerAddress from, Resign resign) {
        if (!phases.member() || phases.in(Phase.LEADING) || !from.equals(view.leader)
                || resign.term() != view.term()) {
            return;
        }
        phases.setLeader(null);
        view.excluded = from;
        if (resign.leaving()) {
            view.table.forget(from);
            view.detector().untrack(from);
        }
        if (phases.in(Phase.FOLLOWING)) {
            phases.startElection();
        }
    }

    void onLeave(PeerAddress from, Leave leave) {
        if (!phases.member() || leave.term() != view.term()) {
            return;
        }
        Leading leading = phases.leading();
        if (leading != null) {
            leading.onLeave(from);
            return;
        }
        view.table.forget(from);
        view.detector().untrack(from);
        if (from.equals(view.leader)) {
            // The node this one took for its leader had already stopped leading (this node missed the news).
            leaderGone();
        }
    }

    /** The node this one follows no longer leads: a follower elects at once. */
    private void leaderGone() {
        phases.setLeader(null);
        if (phases.in(Phase.FOLLOWING)) {
            phases.startElection();
        }
    }

    private void noteTerm(long heard) {
        view.noteTerm(heard, context.clock().nanoTime());
    }
}

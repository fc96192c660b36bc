package dev.baton.peer.bully;

import dev.baton.core.time.Scheduler.Cancellable;
import dev.baton.peer.bully.BullyMessage.Ack;
import dev.baton.peer.bully.BullyMessage.GroupMember;
import dev.baton.peer.bully.BullyMessage.Ping;
import dev.baton.peer.bully.BullyMessage.ProbeReport;
import dev.baton.peer.bully.BullyMessage.ProbeRequest;
import dev.baton.peer.transport.PeerAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Seed 004's failure detector, one per member: it pings every other member of its table every pingInterval; a member
 * that has not answered for suspectAfter intervals is suspected and probed once through another member (chosen at
 * random), and confirmed failed only if that probe fails too, so a single slow link does not evict anyone. A failed
 * member is still pinged: an answer brings it back. The same class serves the helper's side of other members' probes.
 *
 * <p>Only an answer carrying the process id the table has for the target counts, so a new process on a crashed
 * member's address does not keep the old entry alive. Confined to the node's scheduler; it reports to its
 * {@link Verdicts}.
 */
final class FailureDetector {

    /** Where the detector's conclusions go, and the group's term and this node's process id its pings carry. */
    interface Verdicts {

        long term();

        long pid();

        /** {@code address} missed suspectAfter pings in a row; a probe through another member is under way. */
        void suspected(PeerAddress address);

        /** A suspected or failed member answered again. */
        void recovered(PeerAddress address);

        /** The probe through another member failed too (or nobody could probe): {@code address} has failed. */
        void confirmedFailed(PeerAddress address);
    }

    /** What this member believes of another. */
    enum Liveness { ALIVE, SUSPECT, FAILED }

    private static final class Target {
        final PeerAddress address;
        long pid;
        int missed;
        boolean awaiting;
        Liveness liveness = Liveness.ALIVE;
        long probeId;
        Cancellable probeTimer = Cancellable.NONE;

        Target(PeerAddress address, long pid) {
            this.address = address;
            this.pid = pid;
        }
    }

    private record Help(PeerAddress requester, PeerAddress target, long targetPid) {
    }

    private final PhaseContext context;
    private final Verdicts verdicts;
    private final Map<PeerAddress, Target> targets = new TreeMap<>();
    private final Map<Long, Help> helping = new HashMap<>();

    FailureDetector(PhaseContext context, Verdicts verdicts) {
        this.context = context;
        this.verdicts = verdicts;
    }

    /**
     * Follows the table: new members are tracked as alive, members with a new process id start over, gone ones drop.
     * The leader ({@code leader} with {@code leaderPid}, may be null) is watched even while the table does not list
     * it yet, so that a member always notices its leader's failure (or that it moved on to a newer term).
     */
    void track(Collection<GroupMember> members, PeerAddress leader, long leaderPid) {
        Set<PeerAddress> present = new HashSet<>();
        for (GroupMember member : members) {
            watch(member.address(), member.pid(), present);
        }
        if (leader != null && !present.contains(leader)) {
            watch(leader, leaderPid, present);
        }
        targets.keySet().removeIf(address -> {
            if (present.contains(address)) {
                return false;
            }
            targets.get(address).probeTimer.cancel();
            return true;
        });
    }

    private void watch(PeerAddress address, long pid, Set<PeerAddress> present) {
        if (address.equals(context.self())) {
            return;
        }
        present.add(address);
        Target target = targets.get(address);
        if (target == null || target.pid != pid) {
            if (target != null) {
                target.probeTimer.cancel();
            }
            targets.put(address, new Target(address, pid));
        }
    }

    /** Stops watching one member (it left, or the leader removed it). */
    void untrack(PeerAddress address) {
        Target target = targets.remove(address);
        if (target != null) {
            target.probeTimer.cancel();
        }
    }

    /** Stops watching everyone (the node rejoins or closes). Probes this node helps with are dropped too. */
    void clear() {
        targets.values().forEach(t -> t.probeTimer.cancel());
        targets.clear();
        helping.clear();
    }

    Liveness liveness(PeerAddress address) {
        Target target = targets.get(address);
        return target == null ? null : target.liveness;
    }

    /** Members this one has confirmed failed. */
    Set<PeerAddress> failed() {
        Set<PeerAddress> failed = new HashSet<>();
        for (Target target : targets.values()) {
            if (target.liveness == Liveness.FAILED) {
                failed.add(target.address);
            }
        }
        return failed;
    }

    /** One round, every pingInterval: count a missed answer for every ping still unanswered, suspect, ping again. */
    void round() {
        for (Target target : List.copyOf(targets.values())) {
            if (target.awaiting) {
                target.missed++;
            }
            if (target.liveness == Liveness.ALIVE && target.missed >= context.config().suspectAfter()) {
                suspect(target);
            }
            if (targets.get(target.address) == target) {
                target.awaiting = true;
                context.send(target.address, new Ping(verdicts.term(), verdicts.pid(), target.pid, 0));
            }
        }
    }

    /** An {@link Ack}: liveness of a tracked member, and the answer to a probe this node pings for. */
    void onAck(PeerAddress from, Ack ack) {
        if (ack.probeId() != 0) {
            Help help = helping.get(ack.probeId());
            if (help != null && help.target().equals(from) && help.targetPid() == ack.pid()) {
                helping.remove(ack.probeId());
                context.send(help.requester(), new ProbeReport(ack.probeId(), from, true));
            }
        }
        Target target = targets.get(from);
        if (target == null || target.pid != ack.pid()) {
            return;
        }
        target.missed = 0;
        target.awaiting = false;
        if (target.liveness != Liveness.ALIVE) {
            target.probeTimer.cancel();
            target.liveness = Liveness.ALIVE;
            verdicts.recovered(from);
        }
    }

    /** Another member asks this one to ping a member it suspects; the answer (or its absence) is reported back. */
    void onProbeRequest(PeerAddress from, ProbeRequest request) {
        helping.put(request.probeId(), new Help(from, request.target(), request.targetPid()));
        context.send(request.target(),
                new Ping(verdicts.term(), verdicts.pid(), request.targetPid(), request.probeId()));
        context.scheduler().schedule(context.config().probeTimeout().dividedBy(2), () -> {
            Help unanswered = helping.remove(request.probeId());
            if (unanswered != null) {
                context.send(from, new ProbeReport(request.probeId(), request.target(), false));
            }
        });
    }

    /** A helper's report on a member this node suspects. */
    void onProbeReport(ProbeReport report) {
        Target target = targets.get(report.target());
        if (target == null || target.liveness != Liveness.SUSPECT || target.probeId != report.probeId()) {
            return;
        }
        if (report.reachable()) {
            target.probeTimer.cancel();
            target.missed = 0;
            target.liveness = Liveness.ALIVE;
            verdicts.recovered(target.address);
        } else {
            confirm(target);
        }
    }

    private void suspect(Target target) {
        target.liveness = Liveness.SUSPECT;
        verdicts.suspected(target.address);
        if (targets.get(target.address) != target || target.liveness != Liveness.SUSPECT) {
            return;
        }
        List<Target> helpers = new ArrayList<>();
        for (Target other : targets.values()) {
            if (other != target && other.liveness == Liveness.ALIVE) {
                helpers.add(other);
            }
        }
        if (helpers.isEmpty()) {
            // Nobody to ask: with two members the direct pings are all there is.
            confirm(target);
            return;
        }
        Target helper = helpers.get(context.random().nextInt(helpers.size()));
        long probeId;
        do {
            probeId = context.random().nextLong();
        } while (probeId == 0);
        target.probeId = probeId;
        context.send(helper.address, new ProbeRequest(probeId, target.address, target.pid));
        long expected = probeId;
        target.probeTimer = context.scheduler().schedule(context.config().probeTimeout(), () -> {
            if (targets.get(target.address) == target && target.liveness == Liveness.SUSPECT
                    && target.probeId == expected) {
                confirm(target);
            }
        });
    }

    private void confirm(Target target) {
        target.probeTimer.cancel();
        target.liveness = Liveness.FAILED;
        verdicts.confirmedFailed(target.address);
    }
}

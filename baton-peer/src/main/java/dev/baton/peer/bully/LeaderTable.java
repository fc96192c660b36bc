package dev.baton.peer.bully;

import dev.baton.core.MemberState;
import dev.baton.core.time.Clock;
import dev.baton.peer.MemberCard;
import dev.baton.peer.bully.BullyMessage.GroupMember;
import dev.baton.peer.bully.BullyMessage.Join;
import dev.baton.peer.bully.BullyMessage.JoinAccepted;
import dev.baton.peer.bully.BullyMessage.JoinRefusal;
import dev.baton.peer.bully.BullyMessage.JoinRefused;
import dev.baton.peer.bully.BullyMessage.Table;
import dev.baton.peer.transport.PeerAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's side of the member table (seed 004's member map on the leader): it admits joiners under the next
 * process id, moves members between states on what they and the failure detector say, removes members that left or
 * failed, and sends the table to the members after every change. Each step changes the {@link GroupTable} (and what
 * the detector watches) and returns its {@link Effects} (messages, member events) for {@link Leading} to perform; it
 * sends nothing itself. Confined to the node's scheduler.
 */
final class LeaderTable {

    private static final Logger log = LoggerFactory.getLogger(LeaderTable.class);

    private final GroupView view;
    private final GroupTable table;
    private final PeerAddress self;
    private final Clock clock;

    LeaderTable(GroupView view, PeerAddress self, Clock clock) {
        this.view = view;
        this.table = view.table;
        this.self = self;
        this.clock = clock;
    }

    /**
     * A joiner (or a member sending its card again). A new address is admitted under the next process id (the other
     * members get the table), the same process again keeps its id, and another process on an address still in the
     * table is refused. The joiner gets its process id and the whole table.
     */
    Effects join(PeerAddress from, Join request) {
        Effects out = new Effects();
        long term = view.term();
        GroupMember existing = table.get(from);
        if (existing != null && existing.incarnation() != request.incarnation()) {
            out.send(from, new JoinRefused(term, JoinRefusal.ADDRESS_IN_USE));
            return out;
        }
        if (existing == null) {
            GroupMember admitted = table.admit(from, request.incarnation(), request.card(),
                    clock.instant().toEpochMilli());
            view.watch();
            out.joined(GroupTable.nodeInfo(admitted, self));
            log.debug("{} admitted {} as pid {}", self, from, admitted.pid());
            Table update = view.tableMessage();
            for (PeerAddress other : view.others()) {
                if (!other.equals(from)) {
                    out.send(other, update);
                }
            }
        } else if (table.updateCard(from, request.card())) {
            sendTable(out);
        }
        GroupMember member = table.get(from);
        out.send(from, new JoinAccepted(term, member.pid(), view.pid(), table.revision(), table.nextPid(),
                table.snapshot()));
        return out;
    }

    /** A member's own ping of this term: it is alive; one this leader removed is sent the table (and rejoins). */
    Effects memberPinged(PeerAddress from, long senderPid) {
        Effects out = new Effects();
        if (!table.contains(from, senderPid)) {
            // It believes it is a member but this leader removed it: the table tells it so, and it rejoins.
            out.send(from, view.tableMessage());
        } else {
            activate(from, out);
        }
        return out;
    }

    /** A member answered this leader's ping: it is alive; one whose table is behind gets the table. */
    Effects memberAnswered(PeerAddress from, long revision) {
        Effects out = new Effects();
        activate(from, out);
        if (revision < table.revision()) {
            out.send(from, view.tableMessage());
        }
        return out;
    }

    /** A member leaves on purpose ({@code Leave}): it is leaving, then gone. */
    Effects left(PeerAddress from) {
        Effects out = new Effects();
        GroupMember before = table.setState(from, MemberState.LEAVING);
        if (before != null) {
            out.stateChanged(GroupTable.nodeInfo(table.get(from), self), before.state(), MemberState.LEAVING);
            remove(from, out);
        }
        return out;
    }

    /** The detector suspects a member: it is unreachable. */
    Effects suspected(PeerAddress address) {
        Effects out = new Effects();
        GroupMember before = table.setState(address, MemberState.UNREACHABLE);
        if (before != null) {
            out.stateChanged(GroupTable.nodeInfo(table.get(address), self), before.state(),
                    MemberState.UNREACHABLE);
            sendTable(out);
        }
        return out;
    }

    /** The detector hears an unreachable member again: it is active. */
    Effects recovered(PeerAddress address) {
        Effects out = new Effects();
        GroupMember entry = table.get(address);
        if (entry != null && entry.state() == MemberState.UNREACHABLE) {
            activate(address, out);
        }
        return out;
    }

    /** The leader's own card changed. */
    Effects ownCardChanged(MemberCard card) {
        Effects out = new Effects();
        if (table.updateCard(self, card)) {
            sendTable(out);
        }
        return out;
    }

    /** The detector confirmed a member failed: it is removed. */
    Effects failed(PeerAddress address) {
        Effects out = new Effects();
        remove(address, out);
        return out;
    }

    /** A joining member answered for the first time, or an unreachable one is heard again. */
    private void activate(PeerAddress address, Effects out) {
        GroupMember entry = table.get(address);
        if (entry == null || (entry.state() != MemberState.JOINING && entry.state() != MemberState.UNREACHABLE)) {
            return;
        }
        GroupMember before = table.setState(address, MemberState.ACTIVE);
        out.stateChanged(GroupTable.nodeInfo(table.get(address), self), before.state(), MemberState.ACTIVE);
        sendTable(out);
    }

    private void remove(PeerAddress address, Effects out) {
        GroupMember gone = table.remove(address);
        view.detector().untrack(address);
        if (gone != null) {
            log.debug("{} removed {} (pid {})", self, address, gone.pid());
            out.removed(address.format());
            sendTable(out);
        }
    }

    /** The table, to every other member. */
    private void sendTable(Effects out) {
        out.sendAll(view.others(), view.tableMessage());
    }
}

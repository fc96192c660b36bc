package dev.baton.peer.bully;

import dev.baton.core.MemberState;
import dev.baton.peer.MemberCard;
import dev.baton.peer.transport.PeerAddress;
import java.util.List;
import java.util.Objects;

/**
 * Every message of the bully protocol (seed 004), as records; {@code JacksonMessageCodec.forSealed(BullyMessage.class)}
 * puts them on the wire. The sender is the transport's {@code from}, never a field. {@code term} is always the term of
 * the group the sender belongs to (the leader-store term of the leader it follows or is; 0 before it has joined), so a
 * node of an older group learns from any message that a newer one exists. See {@code docs/bully.md} for the table.
 */
public sealed interface BullyMessage {

    // ---- failure detector: every member pings every other member every pingInterval

    /**
     * A ping. {@code targetPid} is the process id the sender has for the target: only that process answers with it,
     * so a new process on the address of a crashed one does not keep the old entry alive. {@code probeId} is 0 for
     * the sender's own pings and the probe's id when the sender pings for another member's indirect probe.
     */
    record Ping(long term, long senderPid, long targetPid, long probeId) implements BullyMessage {
    }

    /** The answer to every {@link Ping}: the responder's term, its own process id (0: none), the table revision it holds. */
    record Ack(long term, long pid, long probeId, long revision) implements BullyMessage {
    }

    /** "Ping {@code target} for me": the indirect probe of a suspected member, through one other member. */
    record ProbeRequest(long probeId, PeerAddress target, long targetPid) implements BullyMessage {
    }

    /** The helper's answer to a {@link ProbeRequest}: whether the target answered its ping in time. */
    record ProbeReport(long probeId, PeerAddress target, boolean reachable) implements BullyMessage {
    }

    // ---- joining (seed 004's Join / Ack)

    /**
     * Asks the leader read from the leader store to admit the sender. {@code incarnation} is random per process
     * start: the same process asking again is admitted again under its process id, another process on an address
     * still in the table is refused. A member sends it again to update its card.
     */
    record Join(long incarnation, MemberCard card) implements BullyMessage {
    }

    /** The leader's admission: the joiner's process id and the whole table. */
    record JoinAccepted(long term, long pid, long leaderPid, long revision, long nextPid, List<GroupMember> members)
            implements BullyMessage {

        public JoinAccepted {
            members = List.copyOf(members);
        }
    }

    /** The join was refused, and why. */
    record JoinRefused(long term, JoinRefusal reason) implements BullyMessage {

        public JoinRefused {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** Why a join was refused. */
    enum JoinRefusal {
        /** The node asked is not the leader: the leader record was stale (seed: "not in fact the leader"). */
        NOT_LEADER,
        /** The leader still has a member on the joiner's address (seed: "already in use within the group"). */
        ADDRESS_IN_USE,
        /** The leader is closing. */
        CLOSING
    }

    // ---- election: ELECTION / ANSWER / COORDINATOR

    /** "The leader is gone (or I outrank it): I am running an election", sent to every higher process. */
    record Election(long term, long pid) implements BullyMessage {
    }

    /** A higher process's answer to an {@link Election}: it takes over the election. */
    record Answer(long term, long pid) implements BullyMessage {
    }

    /** "I lead {@code term}": sent by a new leader to every member, and by a leader re-asserting itself. */
    record Coordinator(long term, long pid) implements BullyMessage {
    }

    // ---- the leader's member table

    /** The leader's whole table, after every change and to a member whose revision is behind. */
    record Table(long term, long revision, long nextPid, List<GroupMember> members) implements BullyMessage {

        public Table {
            members = List.copyOf(members);
        }
    }

    /**
     * The leader of {@code term} stopped leading ({@code stepDown()}, {@code close()} when {@code leaving}, or its
     * term could not be confirmed in the store): its members elect at once, without it.
     */
    record Resign(long term, boolean leaving) implements BullyMessage {
    }

    /** A member leaving on purpose ({@code close()}), to every member. */
    record Leave(long term) implements BullyMessage {
    }

    /**
     * One member as the leader's table has it.
     *
     * @param address        the member's peer address, which is its node id
     * @param pid            the process id the leader gave it (seed 004's PID): the bully order
     * @param incarnation    random per process start
     * @param card           what the member said about itself when it joined
     * @param state          joining, active, unreachable or leaving
     * @param joinedAtMillis when the leader admitted it, by the leader's wall clock (display only)
     */
    record GroupMember(PeerAddress address, long pid, long incarnation, MemberCard card, MemberState state,
            long joinedAtMillis) {

        public GroupMember {
            Objects.requireNonNull(address, "address");
            Objects.requireNonNull(card, "card");
            Objects.requireNonNull(state, "state");
        }

        GroupMember withState(MemberState newState) {
            return new GroupMember(address, pid, incarnation, card, newState, joinedAtMillis);
        }

        GroupMember withCard(MemberCard newCard) {
            return new GroupMember(address, pid, incarnation, newCard, state, joinedAtMillis);
        }
    }
}

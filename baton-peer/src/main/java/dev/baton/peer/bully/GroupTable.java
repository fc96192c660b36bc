package dev.baton.peer.bully;

import dev.baton.core.MemberState;
import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import dev.baton.peer.MemberCard;
import dev.baton.peer.bully.BullyMessage.GroupMember;
import dev.baton.peer.transport.PeerAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The group's member table (seed 004's member map): on the leader the authoritative one, which assigns process ids
 * and changes states; on a member the copy its leader last sent. Every change on the leader bumps the revision, and
 * process ids are never given twice within one table's lineage ({@code nextPid} travels with the table, so a new
 * leader goes on from where its predecessor stopped). Confined to the node's scheduler.
 */
final class GroupTable {

    private final Map<PeerAddress, GroupMember> members = new TreeMap<>();
    private long revision;
    private long nextPid = 1;

    long revision() {
        return revision;
    }

    long nextPid() {
        return nextPid;
    }

    GroupMember get(PeerAddress address) {
        return members.get(address);
    }

    /** Whether {@code address} is in the table under process id {@code pid}. */
    boolean contains(PeerAddress address, long pid) {
        GroupMember member = members.get(address);
        return member != null && member.pid() == pid;
    }

    Collection<GroupMember> members() {
        return members.values();
    }

    List<GroupMember> snapshot() {
        return List.copyOf(members.values());
    }

    int size() {
        return members.size();
    }

    // ---- a member's copy

    /** Replaces the copy with the leader's table. */
    void replace(long newRevision, long newNextPid, List<GroupMember> entries) {
        members.clear();
        for (GroupMember entry : entries) {
            members.put(entry.address(), entry);
        }
        revision = newRevision;
        nextPid = newNextPid;
    }

    /** Drops a member that said it leaves, until the leader's next table. */
    void forget(PeerAddress address) {
        members.remove(address);
    }

    void clear() {
        members.clear();
    }

    // ---- the leader's table; every change bumps the revision

    /** A new group with this node alone (seed: "set its PID to 1, add itself to the member map"). */
    void found(PeerAddress self, long pid, long incarnation, MemberCard card, long nowMillis) {
        members.clear();
        members.put(self, new GroupMember(self, pid, incarnation, card, MemberState.ACTIVE, nowMillis));
        nextPid = pid + 1;
        revision++;
    }

    /**
     * This node takes the table over as its new leader: members its detector confirmed failed are dropped (and
     * returned), its own entry is active, and process ids go on above every id it knows of.
     */
    List<GroupMember> takeOver(PeerAddress self, long pid, long incarnation, MemberCard card, Set<PeerAddress> failed,
            long nowMillis) {
        List<GroupMember> dropped = new ArrayList<>();
        for (PeerAddress address : failed) {
            GroupMember gone = members.remove(address);
            if (gone != null) {
                dropped.add(gone);
            }
        }
        GroupMember own = members.get(self);
        members.put(self, new GroupMember(self, pid, incarnation, card, MemberState.ACTIVE,
                own != null && own.pid() == pid ? own.joinedAtMillis() : nowMillis));
        long highest = members.values().stream().mapToLong(GroupMember::pid).max().orElse(0);
        nextPid = Math.max(nextPid, highest + 1);
        revision++;
        return dropped;
    }

    /** Admits a new member under the next process id. */
    GroupMember admit(PeerAddress address, long incarnation, MemberCard card, long nowMillis) {
        GroupMember member = new GroupMember(address, nextPid++, incarnation, card, MemberState.JOINING, nowMillis);
        members.put(address, member);
        revision++;
        return member;
    }

    /** Moves a member to {@code state}; returns its previous entry, or null if it is not in the table or already so. */
    GroupMember setState(PeerAddress address, MemberState state) {
        GroupMember member = members.get(address);
        if (member == null || member.state() == state) {
            return null;
        }
        members.put(address, member.withState(state));
        revision++;
        return member;
    }

    /** Removes a member; returns it, or null if it was not in the table. */
    GroupMember remove(PeerAddress address) {
        GroupMember gone = members.remove(address);
        if (gone != null) {
            revision++;
        }
        return gone;
    }

    /** Replaces a member's card; false if it is not in the table or the card is the same. */
    boolean updateCard(PeerAddress address, MemberCard card) {
        GroupMember member = members.get(address);
        if (member == null || member.card().equals(card)) {
            return false;
        }
        members.put(address, member.withCard(card));
        revision++;
        return true;
    }

    /** The metadata key under which a member's process id shows in {@link NodeInfo#metadata()}. */
    static final String PID_KEY = "bully.pid";

    /** The core view of a member: its id is its address; {@code leader} gets the leader role; the pid is metadata. */
    static NodeInfo nodeInfo(GroupMember member, PeerAddress leader) {
        MemberCard card = member.card();
        Map<String, String> metadata = new HashMap<>(card.metadata());
        metadata.put(PID_KEY, Long.toString(member.pid()));
        return new NodeInfo(member.address().format(), card.identifier(), card.apiAddress(),
                member.address().equals(leader) ? Role.LEADER : Role.FOLLOWER, card.capabilities(), metadata,
                member.joinedAtMillis() == 0 ? null : Instant.ofEpochMilli(member.joinedAtMillis()), null);
    }
}

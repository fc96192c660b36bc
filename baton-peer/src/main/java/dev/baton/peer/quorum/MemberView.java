package dev.baton.peer.quorum;

import dev.baton.core.Capabilities;
import dev.baton.core.MemberState;
import dev.baton.peer.MemberCard;
import dev.baton.peer.transport.PeerAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A follower's copy of its leader's member table, built from {@code MemberStatusUpdate}s and
 * {@code ClusterAlignment}s of one leader version.
 *
 * <p>Updates may arrive out of order (exceptional case 2): an entry is replaced only by one with a newer revision,
 * and removed members stay as tombstones so that a late, older update cannot bring them back. {@link #revision()}
 * advances only through updates received in order or a full alignment, so a follower that missed an update reports
 * a stale revision in its keep-alives and the leader sends it the whole table.
 *
 * <p>Until the leader's table arrives, a view for a new leader holds what the node knew: the members of its previous
 * view and the leader itself, as of revision 0 (see {@link #carriedTo}). A node whose new leader dies within that
 * round trip and that is elected itself then still knows the members it has to check, its dead leader above all.
 */
final class MemberView {

    private final long version;
    private final Map<PeerAddress, MemberEntry> entries = new TreeMap<>();
    private long revision;

    MemberView(long version) {
        this.version = version;
    }

    /**
     * A view for the leader of {@code newVersion} that starts from this one: its live members, each as of revision 0
     * (known, not yet confirmed by that leader), so that any update from the new leader replaces them, its table
     * replaces them all, and the view's revision stays 0 until then (its keep-alives ask for the table).
     */
    MemberView carriedTo(long newVersion) {
        MemberView next = new MemberView(newVersion);
        for (MemberEntry entry : members()) {
            next.entries.put(entry.address(), entry.withState(entry.state(), 0));
        }
        return next;
    }

    /**
     * Makes sure {@code leader} is in the view: the leader this node follows is a member, whether or not its table has
     * arrived yet. An entry it does not have yet is active as of revision 0, with only its address known.
     */
    void assumeLeader(PeerAddress leader) {
        if (!entries.containsKey(leader)) {
            entries.put(leader, new MemberEntry(leader, new MemberCard(leader.format(), null, Capabilities.DEFAULT,
                    Map.of()), MemberState.ACTIVE, 0, 0, 0));
        }
    }

    /** The leader version this view belongs to. */
    long version() {
        return version;
    }

    /** The newest revision of the leader's table this view holds completely. */
    long revision() {
        return revision;
    }

    /** Applies one update; false if it is older than what the view has. */
    boolean apply(MemberEntry entry) {
        MemberEntry existing = entries.get(entry.address());
        if (existing != null && existing.revision() >= entry.revision()) {
            return false;
        }
        entries.put(entry.address(), entry);
        if (entry.revision() == revision + 1) {
            revision = entry.revision();
        }
        return true;
    }

    /** Replaces the view with the leader's whole table, unless the view is already newer. */
    void align(long tableRevision, Collection<MemberEntry> table) {
        if (tableRevision < revision) {
            return;
        }
        Map<PeerAddress, MemberEntry> tombstones = new TreeMap<>();
        entries.forEach((address, entry) -> {
            if (entry.state() == MemberState.REMOVED && entry.revision() > tableRevision) {
                tombstones.put(address, entry);
            }
        });
        entries.clear();
        for (MemberEntry entry : table) {
            entries.put(entry.address(), entry);
        }
        entries.putAll(tombstones);
        revision = tableRevision;
    }

    void remove(PeerAddress address) {
        entries.remove(address);
    }

    /** The live entries (every state but removed), ordered by address. */
    List<MemberEntry> members() {
        List<MemberEntry> live = new ArrayList<>(entries.size());
        for (MemberEntry entry : entries.values()) {
            if (entry.state() != MemberState.REMOVED) {
                live.add(entry);
            }
        }
        return live;
    }

    MemberEntry get(PeerAddress address) {
        MemberEntry entry = entries.get(address);
        return entry == null || entry.state() == MemberState.REMOVED ? null : entry;
    }
}

package dev.baton.peer.quorum;

import dev.baton.core.MemberState;
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
 */
final class MemberView {

    private final long version;
    private final Map<PeerAddress, MemberEntry> entries = new TreeMap<>();
    private long revision;

    MemberView(long version) {
        this.version = version;
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

package dev.baton.peer.quorum;

import static dev.baton.peer.quorum.QuorumMessage.NO_STAMP;

import dev.baton.peer.transport.PeerAddress;

/**
 * What a node knows of its leader, shared by its phases: the newest decided leader (which never goes back), the
 * leader it follows or is now, when it last heard that leader, the stamp it echoes, whether it may report the leader
 * as valid, the table the leader sent, and whom it is joining. Plain fields, confined to the node's scheduler: each
 * phase object reads and moves them as the protocol's rules say, and the node's dispatcher owns the phase itself.
 */
final class KnownLeader {

    /** The newest decided leader this node knows of; never goes back. */
    PeerAddress leader;
    long version;
    /** The leader this node follows (or is) now, or null. */
    PeerAddress current;
    /** The last acknowledgement (or announcement) from the current leader, on this node's clock. */
    long contact;
    /** The last time any leader was seen; three ttlTimeouts without one and the node starts over. */
    long lastSeen;
    /** The version of a leader that resigned (or that this node gave up), or -1. */
    long resignedVersion = -1;
    /** The newest stamp of the current leader, echoed in keep-alives, or {@link QuorumMessage#NO_STAMP}. */
    long echo = NO_STAMP;
    /** Whether an acknowledgement said how long the current leader stays valid, and until when. */
    boolean recognising;
    long recognisedUntil;
    /** Followed or led a leader since it last gave up: such a node may start an election. */
    boolean wasMember;
    /** The leader this node asked to admit it, while JOINING. */
    PeerAddress joinTarget;
    /** The member table as the leader sent it (or as this node carried it over). */
    MemberView view = new MemberView(0);
}

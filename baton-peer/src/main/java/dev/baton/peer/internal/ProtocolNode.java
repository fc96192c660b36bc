package dev.baton.peer.internal;

import dev.baton.core.MemberStatus;
import dev.baton.peer.transport.PeerAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A serverless protocol's state machine (quorum, bully) as its {@link PeerElection} drives it. {@link #self()} and
 * {@link #output()} may be called from any thread; everything else runs on the machine's scheduler. Not a published
 * API.
 *
 * @param <M> the protocol's message type
 */
public interface ProtocolNode<M> {

    /** This node's peer address, which is also its node id. */
    PeerAddress self();

    /** What the machine tells the world: its events and the snapshot other threads read. */
    NodeOutput output();

    /** Starts the machine; called once. */
    void start();

    /** A message from {@code from}, as the transport delivered it. */
    void onMessage(PeerAddress from, M message);

    /** Gives up leadership if held; completes {@code done} when it is done. */
    void stepDown(boolean fromListener, CompletableFuture<Void> done);

    /** Leaves the group; completes {@code closed} once the farewell is out. */
    void close(boolean fromListener, CompletableFuture<Void> closed);

    /** Every member the machine knows, in its state. */
    List<MemberStatus> memberStatuses();
}

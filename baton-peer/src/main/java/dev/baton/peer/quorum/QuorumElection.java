package dev.baton.peer.quorum;

import dev.baton.core.Election;
import dev.baton.core.ElectionListener;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.Leadership;
import dev.baton.core.MemberStatus;
import dev.baton.core.Membership;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import dev.baton.peer.MemberCard;
import dev.baton.peer.internal.NodeOutput;
import dev.baton.peer.internal.PeerElection;
import dev.baton.peer.internal.PeerMembership;
import dev.baton.peer.internal.ProtocolNode;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Leader election and membership with no server (seed 003's quorum membership, made safe): the {@link Election} of
 * the {@code peer} backend. Most users build one with {@link Quorum}.
 *
 * <p>The group is the cluster's name. A node's id is its peer address ({@code host:port}). The term of a leadership
 * is the cluster version the election decided, which is also the fencing token: no two nodes ever lead the same
 * version, and versions only grow. A leadership is valid until the newest time a majority acknowledged it plus
 * heartbeatTimeout, on the monotonic clock; a leader that loses its majority stops by then
 * ({@code LeadershipLost}, reason {@code EXPIRED_LOCALLY}), before the majority can elect another leader.
 *
 * <p>Events are the lease backends' ({@code ElectionStarted}/{@code Completed}, {@code LeadershipAcquired}/{@code
 * Lost}, {@code LeaderChanged}, {@code MemberJoined}/{@code StateChanged}/{@code Removed} on the leader only, {@code
 * ElectionError}), delivered in order as {@link ElectionListener} describes. Reasons for a loss: {@code RELEASED}
 * ({@link #stepDown()}, {@link #close()}), {@code EXPIRED_LOCALLY} (check-quorum), {@code LEASE_TAKEN} (a newer
 * leader, or a seed's {@code LeaderRelieve}).
 *
 * <p>{@link #stepDown()}: the node stops leading, its listeners are told, then it names the member that acknowledged
 * it last as successor, which is elected at once; this node runs no election of its own for ttlTimeout. {@link
 * #close()}: a leader hands over the same way and leaves the table; a follower tells its leader it leaves.
 * {@code fencedRegister} is not available (no shared store that refuses older terms): fence with
 * {@link Leadership#term()} in the resource itself.
 *
 * <p>The state machine ({@code QuorumNode}) runs on the given {@link Scheduler}; this class posts every call there and
 * reads only what the machine publishes.
 */
public final class QuorumElection extends PeerElection<QuorumMessage, QuorumElection.Machine> {

    private final QuorumConfig config;
    private final Membership membership;

    /**
     * Creates an election over {@code transport}, which it takes the message handler of; most users build one with
     * {@link Quorum} instead.
     *
     * @param card          what this node tells the cluster about itself
     * @param durable       where the node keeps its votes across crashes
     * @param eventExecutor the default executor for listeners
     * @param afterClose    run once the election has closed (the driver releases its threads and transport there)
     */
    public QuorumElection(String group, MemberCard card, QuorumConfig config, Transport<QuorumMessage> transport,
            DurableState durable, Clock clock, Scheduler scheduler, Random random, Executor eventExecutor,
            Runnable afterClose) {
        this(group, card, config, transport, durable, Effects::forState, clock, scheduler, random, eventExecutor,
                ElectionMetrics.NONE, afterClose);
    }

    /**
     * An election whose saves go through the driver {@code driver} makes (the simulation's disks), and that reports
     * each leadership's deadline to {@code metrics} ({@link Quorum.Builder#metrics}).
     */
    QuorumElection(String group, MemberCard card, QuorumConfig config, Transport<QuorumMessage> transport,
            DurableState durable, Effects.Factory driver, Clock clock, Scheduler scheduler, Random random,
            Executor eventExecutor, ElectionMetrics metrics, Runnable afterClose) {
        super(group, transport, scheduler, eventExecutor, Objects.requireNonNull(config, "config").heartbeatTimeout(),
                afterClose, events -> new Machine(new QuorumNode(group, transport.local(),
                        Objects.requireNonNull(card, "card"), config, transport,
                        Objects.requireNonNull(durable, "durable"), driver, Objects.requireNonNull(clock, "clock"),
                        scheduler, Objects.requireNonNull(random, "random"), events,
                        Objects.requireNonNull(metrics, "metrics"))));
        this.config = config;
        this.membership = new PeerMembership(new QuorumMembership(node()), scheduler);
    }

    public QuorumConfig config() {
        return config;
    }

    @Override
    public Membership membership() {
        return membership;
    }

    @Override
    protected String backendName() {
        return "the quorum (peer) backend";
    }

    /** The state machine, for tests in this package. */
    QuorumNode node() {
        return protocol().node;
    }

    @Override
    public String toString() {
        return "QuorumElection{group=" + group() + ", node=" + nodeId() + "}";
    }

    /** The {@link QuorumNode} as the shared election skeleton drives it. */
    static final class Machine implements ProtocolNode<QuorumMessage> {

        private final QuorumNode node;

        private Machine(QuorumNode node) {
            this.node = node;
        }

        @Override
        public PeerAddress self() {
            return node.self();
        }

        @Override
        public NodeOutput output() {
            return node.output();
        }

        @Override
        public void start() {
            node.start();
        }

        @Override
        public void onMessage(PeerAddress from, QuorumMessage message) {
            node.onMessage(from, message);
        }

        @Override
        public void stepDown(boolean fromListener, CompletableFuture<Void> done) {
            node.stepDown(fromListener, done);
        }

        @Override
        public void close(boolean fromListener, CompletableFuture<Void> closed) {
            node.close(fromListener, closed);
        }

        @Override
        public List<MemberStatus> memberStatuses() {
            PeerAddress leader = node.currentLeader();
            List<MemberStatus> members = new ArrayList<>();
            for (MemberEntry entry : node.members()) {
                members.add(new MemberStatus(QuorumMembership.nodeInfo(entry, leader), entry.state()));
            }
            return members;
        }
    }
}

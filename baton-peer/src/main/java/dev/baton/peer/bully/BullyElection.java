package dev.baton.peer.bully;

import dev.baton.core.Election;
import dev.baton.core.ElectionListener;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.Membership;
import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import dev.baton.core.store.LeaderRecordStore;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import dev.baton.peer.MemberCard;
import dev.baton.peer.bully.BullyMessage.GroupMember;
import dev.baton.peer.internal.PeerElection;
import dev.baton.peer.internal.PeerMembership;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.Executor;

/**
 * Leader election and membership by seed 004's bully protocol: an all-to-all failure detector, the highest process id
 * wins, and the current leader is kept in a {@link LeaderRecordStore} where joining processes find it. The
 * {@link Election} of the {@code bully} backend; most users build one with {@link Bully}.
 *
 * <p>The group is the store's group name and, over TCP, the handshake's cluster name. A node's id is its peer address
 * ({@code host:port}); its process id (seed 004's PID, {@link #processId()}) is given by the leader when it joins.
 * The term of a leadership is the leader-store term the leader took with a compare-and-set, so no term ever has two
 * leaders and terms only grow: it is the fencing token. <b>The protocol is not partition-safe</b>: while the network
 * is split, each side can have a leader (of different terms); the older one stops once it learns of the newer one
 * (a COORDINATOR, or its next store check), or when it cannot confirm its term in the store for leadershipValidity.
 * Use the quorum backend ({@code dev.baton.peer.quorum}) where that matters.
 *
 * <p>Events are the other backends' ({@code ElectionStarted}/{@code Completed}, {@code LeadershipAcquired}/{@code
 * Lost}, {@code LeaderChanged}, {@code MemberJoined}/{@code StateChanged}/{@code Removed} on the leader only, {@code
 * ElectionError}), delivered in order as {@link ElectionListener} describes. Reasons for a loss: {@code RELEASED}
 * ({@link #stepDown()}: the members elect without this node, which stays out for holdDown or until another node
 * leads; {@link #close()}: the members elect at once), {@code LEASE_TAKEN} (a newer term: a higher process took over,
 * or the store names another leader), {@code EXPIRED_LOCALLY} (the store did not confirm the term in time).
 * {@code fencedRegister} is not available (no shared register store): fence with {@code Leadership.term()}.
 *
 * <p>The state machine runs on the given {@link Scheduler}; this class posts every call there and reads only what the
 * machine publishes.
 */
public final class BullyElection extends PeerElection<BullyMessage, BullyNode> {

    private final BullyConfig config;
    private final String storeDescription;
    private final Membership membership;

    /**
     * Creates an election over {@code transport}, which it takes the message handler of; most users build one with
     * {@link Bully} instead.
     *
     * @param card          what this node tells the group about itself
     * @param store         where the group's leader record lives; the caller owns it (closes it after this election)
     * @param standalone    stand-alone mode (seed: self == leader): found the group at once instead of looking for a
     *                      leader in the store
     * @param eventExecutor the default executor for listeners
     * @param afterClose    run once the election has closed (the driver releases its threads and transport there)
     */
    public BullyElection(String group, MemberCard card, BullyConfig config, Transport<BullyMessage> transport,
            LeaderRecordStore store, boolean standalone, Clock clock, Scheduler scheduler, Random random,
            Executor eventExecutor, Runnable afterClose) {
        this(group, card, config, transport, store, standalone, clock, scheduler, random, eventExecutor,
                ElectionMetrics.NONE, afterClose);
    }

    /** An election that reports each leadership's deadline to {@code metrics} ({@link Bully.Builder#metrics}). */
    BullyElection(String group, MemberCard card, BullyConfig config, Transport<BullyMessage> transport,
            LeaderRecordStore store, boolean standalone, Clock clock, Scheduler scheduler, Random random,
            Executor eventExecutor, ElectionMetrics metrics, Runnable afterClose) {
        super(group, transport, scheduler, eventExecutor, Objects.requireNonNull(config, "config").coordinatorTimeout(),
                afterClose, events -> new BullyNode(group, transport.local(), Objects.requireNonNull(card, "card"),
                        config, transport, new LeaderStoreCalls(Objects.requireNonNull(store, "store"), group,
                                scheduler, config.storeTimeout()), standalone, Objects.requireNonNull(clock, "clock"),
                        scheduler, Objects.requireNonNull(random, "random"), events,
                        Objects.requireNonNull(metrics, "metrics")));
        this.config = config;
        this.storeDescription = store.describe();
        this.membership = new PeerMembership(new Members(), scheduler);
    }

    public BullyConfig config() {
        return config;
    }

    /** The leader store this election finds and records its leader in, as {@link LeaderRecordStore#describe()}. */
    public String leaderStore() {
        return storeDescription;
    }

    /** This node's process id in its group (seed 004's PID, the bully order); 0 until it has joined. */
    public long processId() {
        return protocol().pid();
    }

    @Override
    public Membership membership() {
        return membership;
    }

    @Override
    protected String backendName() {
        return "the bully backend";
    }

    /** The state machine, for tests in this package. */
    BullyNode node() {
        return protocol();
    }

    @Override
    public String toString() {
        return "BullyElection{group=" + group() + ", node=" + nodeId() + ", store=" + storeDescription + "}";
    }

    /** The membership view: the node's table. */
    private final class Members implements PeerMembership.Source {

        @Override
        public NodeInfo self() {
            BullyNode node = protocol();
            MemberCard card = node.card();
            Role role = node.output().leadership() != null ? Role.LEADER : Role.FOLLOWER;
            Map<String, String> metadata = new HashMap<>(card.metadata());
            long pid = node.pid();
            if (pid > 0) {
                metadata.put(GroupTable.PID_KEY, Long.toString(pid));
            }
            return new NodeInfo(nodeId(), card.identifier(), card.apiAddress(), role, card.capabilities(), metadata,
                    null, null);
        }

        @Override
        public List<NodeInfo> members() {
            PeerAddress leader = protocol().leader();
            List<NodeInfo> result = new ArrayList<>();
            for (GroupMember member : protocol().members()) {
                result.add(GroupTable.nodeInfo(member, leader));
            }
            return result;
        }

        @Override
        public void updateMetadata(Map<String, String> metadata) {
            MemberCard card = protocol().card();
            protocol().updateCard(new MemberCard(card.identifier(), card.apiAddress(), card.capabilities(),
                    metadata));
        }
    }
}

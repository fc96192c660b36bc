package dev.baton.peer.bully;

import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import dev.baton.peer.MemberCard;
import dev.baton.peer.internal.NodeOutput;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import java.util.Random;

/**
 * The {@link PhaseContext} of one {@link BullyNode}: its identity, timings, time, timers and randomness, its leader
 * store, its transport, and the problem it shows. Sending to every other member reads the member table of its
 * {@link GroupView}. Confined to the node's scheduler, except {@link #card()}, which any thread may read.
 */
final class NodeContext implements PhaseContext {

    private final String group;
    private final PeerAddress self;
    private final long incarnation;
    private final BullyConfig config;
    private final Clock clock;
    private final Scheduler scheduler;
    private final Random random;
    private final LeaderStoreCalls store;
    private final NodeOutput output;
    private final Transport<BullyMessage> transport;
    private final GroupView view;
    private volatile MemberCard card;
    private String problem;

    NodeContext(String group, PeerAddress self, long incarnation, MemberCard card, BullyConfig config, Clock clock,
            Scheduler scheduler, Random random, LeaderStoreCalls store, NodeOutput output,
            Transport<BullyMessage> transport, GroupView view) {
        this.group = group;
        this.self = self;
        this.incarnation = incarnation;
        this.card = card;
        this.config = config;
        this.clock = clock;
        this.scheduler = scheduler;
        this.random = random;
        this.store = store;
        this.output = output;
        this.transport = transport;
        this.view = view;
    }

    @Override
    public String group() {
        return group;
    }

    @Override
    public PeerAddress self() {
        return self;
    }

    @Override
    public long incarnation() {
        return incarnation;
    }

    @Override
    public MemberCard card() {
        return card;
    }

    /** This node's new card ({@code setMetadata}); the node tells the group. */
    void card(MemberCard newCard) {
        card = newCard;
    }

    @Override
    public BullyConfig config() {
        return config;
    }

    @Override
    public Clock clock() {
        return clock;
    }

    @Override
    public Scheduler scheduler() {
        return scheduler;
    }

    @Override
    public Random random() {
        return random;
    }

    @Override
    public LeaderStoreCalls store() {
        return store;
    }

    @Override
    public NodeOutput output() {
        return output;
    }

    @Override
    public void send(PeerAddress to, BullyMessage message) {
        transport.send(to, message);
    }

    @Override
    public void broadcast(BullyMessage message) {
        for (PeerAddress other : view.others()) {
            send(other, message);
        }
    }

    /** Why this node has no working leader, as far as it knows (null: nothing to say beyond its phase). */
    String problem() {
        return problem;
    }

    @Override
    public void storeFailed(String failure) {
        boolean first = problem == null || !problem.startsWith("leader store");
        problem = failure;
        if (first) {
            output.error(failure, null);
        }
    }

    @Override
    public void problemSolved() {
        problem = null;
    }

    @Override
    public void reportError(String message) {
        problem = message;
        output.error(message, null);
    }
}

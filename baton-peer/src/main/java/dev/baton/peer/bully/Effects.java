package dev.baton.peer.bully;

import dev.baton.core.MemberState;
import dev.baton.core.NodeInfo;
import dev.baton.peer.transport.PeerAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * What one step of the protocol asks the world to do, in order: messages to send and member events for the
 * application. A step changes its state and records its effects here; its driver then performs them in the order they
 * were recorded ({@link #performOn(PhaseContext)}), so that the step itself can be tested without a network and the
 * order of what leaves the node is written down in one place (the model of etcd raft's {@code Ready}). Messages are
 * built when recorded: they carry the state of the moment the step decided on them.
 */
final class Effects {

    /** One thing to do. */
    sealed interface Effect {
    }

    /** Send {@code message} to {@code to}. */
    record Send(PeerAddress to, BullyMessage message) implements Effect {
    }

    /** Tell the application a member joined the group. */
    record Joined(NodeInfo member) implements Effect {
    }

    /** Tell the application a member moved from one state to another. */
    record StateChanged(NodeInfo member, MemberState from, MemberState to) implements Effect {
    }

    /** Tell the application a member left the table. */
    record Removed(String nodeId) implements Effect {
    }

    private final List<Effect> effects = new ArrayList<>();

    void send(PeerAddress to, BullyMessage message) {
        effects.add(new Send(to, message));
    }

    /** Sends {@code message} to each of {@code recipients}, in their order. */
    void sendAll(List<PeerAddress> recipients, BullyMessage message) {
        for (PeerAddress to : recipients) {
            send(to, message);
        }
    }

    void joined(NodeInfo member) {
        effects.add(new Joined(member));
    }

    void stateChanged(NodeInfo member, MemberState from, MemberState to) {
        effects.add(new StateChanged(member, from, to));
    }

    void removed(String nodeId) {
        effects.add(new Removed(nodeId));
    }

    /** The effects recorded so far, in order. */
    List<Effect> list() {
        return List.copyOf(effects);
    }

    /** Performs every effect, in the order recorded: messages through the transport, events through the output. */
    void performOn(PhaseContext context) {
        for (Effect effect : effects) {
            if (effect instanceof Send send) {
                context.send(send.to(), send.message());
            } else if (effect instanceof Joined joined) {
                context.output().memberJoined(joined.member());
            } else if (effect instanceof StateChanged changed) {
                context.output().memberStateChanged(changed.member(), changed.from(), changed.to());
            } else if (effect instanceof Removed removed) {
                context.output().memberRemoved(removed.nodeId());
            } else {
                throw new IllegalStateException("no way to perform the effect " + effect);
            }
        }
        effects.clear();
    }
}

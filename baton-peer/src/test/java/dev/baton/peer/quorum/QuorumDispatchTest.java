package dev.baton.peer.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.baton.core.Capabilities;
import dev.baton.core.MemberState;
import dev.baton.peer.MemberCard;
import dev.baton.peer.quorum.QuorumMessage.Refusal;
import dev.baton.peer.sim.LinkConditions;
import dev.baton.peer.transport.PeerAddress;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every message type of the sealed {@link QuorumMessage} reaches a handler: the node's dispatch ends in a branch that
 * throws for a type it does not know, so a new message type added without a handler fails here.
 */
class QuorumDispatchTest {

    private final SimCluster cluster = new SimCluster(5, 3, 3, QuorumConfig.fast(), LinkConditions.instant(), false);
    private final PeerAddress n2 = cluster.addresses.get(1);

    @Test
    void everyMessageTypeHasAHandlerOnALeaderAndOnItsFollowers() throws Exception {
        cluster.startAll();
        cluster.advanceUntil(Duration.ofSeconds(30), () -> cluster.leaders().size() == 1);
        List<QuorumMessage> samples = new ArrayList<>();
        for (Class<?> type : QuorumMessage.class.getPermittedSubclasses()) {
            samples.add(sample(type));
        }
        assertThat(samples).hasSize(QuorumMessage.class.getPermittedSubclasses().length).hasSizeGreaterThan(25);
        for (SimCluster.Node node : cluster.nodes.values()) {
            for (QuorumMessage message : samples) {
                assertThatCode(() -> node.node().onMessage(n2.equals(node.address) ? cluster.addresses.get(0) : n2,
                        message)).as(message.getClass().getSimpleName() + " on " + node).doesNotThrowAnyException();
            }
        }
    }

    /** An instance of {@code type} with plausible values: the version of the sample ballot is far ahead. */
    private QuorumMessage sample(Class<?> type) throws Exception {
        RecordComponent[] components = type.getRecordComponents();
        Class<?>[] types = new Class<?>[components.length];
        Object[] values = new Object[components.length];
        for (int i = 0; i < components.length; i++) {
            types[i] = components[i].getType();
            values[i] = value(types[i]);
        }
        Constructor<?> constructor = type.getDeclaredConstructor(types);
        return (QuorumMessage) constructor.newInstance(values);
    }

    private Object value(Class<?> type) {
        if (type == long.class) {
            return 1L;
        }
        if (type == int.class) {
            return 1;
        }
        if (type == boolean.class) {
            return false;
        }
        if (type == PeerAddress.class) {
            return n2;
        }
        if (type == Ballot.class) {
            return new Ballot(1, 0, n2);
        }
        if (type == Refusal.class) {
            return Refusal.NONE;
        }
        if (type == MemberCard.class) {
            return new MemberCard("n2", null, Capabilities.DEFAULT, Map.of());
        }
        if (type == MemberEntry.class) {
            return new MemberEntry(n2, new MemberCard("n2", null, Capabilities.DEFAULT, Map.of()), MemberState.ACTIVE,
                    1, 0, 0);
        }
        if (type == String.class) {
            return "sample";
        }
        if (type == List.class) {
            return List.of();
        }
        throw new AssertionError("no sample value for " + type);
    }
}

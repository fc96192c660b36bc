package dev.baton.peer.bully;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.Capabilities;
import dev.baton.peer.MemberCard;
import dev.baton.peer.bully.BullyMessage.JoinRefusal;
import dev.baton.peer.transport.PeerAddress;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The node's message dispatch knows every message type: a type added to {@link BullyMessage} without a branch in the
 * dispatcher would be counted as a protocol error (and reported), never dropped in silence. Every permitted type is
 * sent to a leader, a follower and a joining node here, and none of them counts an error.
 */
class BullyDispatchTest {

    private static final PeerAddress STRANGER = PeerAddress.of("n9", 7400);

    @Test
    void everyMessageTypeHasAHandlerInEveryPhase() throws Exception {
        BullyCluster cluster = BullyCluster.fast(71, 3).startInOrder();
        BullyCluster.Node leader = cluster.steady();
        BullyCluster.Node follower = cluster.live().stream().filter(n -> n != leader).findFirst().orElseThrow();
        BullyCluster.Node joining = cluster.start(PeerAddress.of("n4", 7400));
        cluster.advance(Duration.ofMillis(1));
        assertThat(joining.node().phase()).isEqualTo(BullyNode.Phase.JOINING);
        List<BullyMessage> samples = samples();
        assertThat(samples).hasSize(BullyMessage.class.getPermittedSubclasses().length).hasSizeGreaterThan(10);

        for (BullyCluster.Node node : List.of(leader, follower, joining)) {
            for (BullyMessage message : samples) {
                node.node().onMessage(STRANGER, message);
            }
            assertThat(node.node().protocolErrors()).as("protocol errors of %s", node).isZero();
        }
    }

    /** One instance of every permitted message type, its fields filled with plain values. */
    private static List<BullyMessage> samples() throws Exception {
        List<BullyMessage> samples = new ArrayList<>();
        for (Class<?> type : BullyMessage.class.getPermittedSubclasses()) {
            RecordComponent[] components = type.getRecordComponents();
            Class<?>[] types = new Class<?>[components.length];
            Object[] values = new Object[components.length];
            for (int i = 0; i < components.length; i++) {
                types[i] = components[i].getType();
                values[i] = sample(types[i]);
            }
            Constructor<?> canonical = type.getDeclaredConstructor(types);
            samples.add((BullyMessage) canonical.newInstance(values));
        }
        return samples;
    }

    private static Object sample(Class<?> type) {
        if (type == long.class) {
            return 1L;
        } else if (type == boolean.class) {
            return false;
        } else if (type == PeerAddress.class) {
            return STRANGER;
        } else if (type == MemberCard.class) {
            return new MemberCard("stranger", null, Capabilities.DEFAULT, Map.of());
        } else if (type == List.class) {
            return List.of();
        } else if (type == JoinRefusal.class) {
            return JoinRefusal.NOT_LEADER;
        }
        throw new IllegalArgumentException("no sample value for a field of type " + type.getName());
    }
}

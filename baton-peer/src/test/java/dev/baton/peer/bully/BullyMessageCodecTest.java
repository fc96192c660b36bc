package dev.baton.peer.bully;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.core.Capabilities;
import dev.baton.core.MemberState;
import dev.baton.peer.MemberCard;
import dev.baton.peer.bully.BullyMessage.Ack;
import dev.baton.peer.bully.BullyMessage.Answer;
import dev.baton.peer.bully.BullyMessage.Coordinator;
import dev.baton.peer.bully.BullyMessage.Election;
import dev.baton.peer.bully.BullyMessage.GroupMember;
import dev.baton.peer.bully.BullyMessage.Join;
import dev.baton.peer.bully.BullyMessage.JoinAccepted;
import dev.baton.peer.bully.BullyMessage.JoinRefusal;
import dev.baton.peer.bully.BullyMessage.JoinRefused;
import dev.baton.peer.bully.BullyMessage.Leave;
import dev.baton.peer.bully.BullyMessage.Ping;
import dev.baton.peer.bully.BullyMessage.ProbeReport;
import dev.baton.peer.bully.BullyMessage.ProbeRequest;
import dev.baton.peer.bully.BullyMessage.Resign;
import dev.baton.peer.bully.BullyMessage.Table;
import dev.baton.peer.transport.JacksonMessageCodec;
import dev.baton.peer.transport.MalformedMessageException;
import dev.baton.peer.transport.PeerAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Every bully message survives the wire codec unchanged. */
class BullyMessageCodecTest {

    private static final JacksonMessageCodec<BullyMessage> CODEC = Bully.codec();
    private static final PeerAddress A = PeerAddress.of("10.0.0.5", 7400);
    private static final PeerAddress B = PeerAddress.parse("[::1]:7401");
    private static final MemberCard CARD = new MemberCard("orders-api", "http://b:8080", new Capabilities(true, 10, 50),
            Map.of("zone", "a"));
    private static final GroupMember MEMBER = new GroupMember(B, 7, -42, CARD, MemberState.UNREACHABLE,
            1_700_000_000_000L);

    private static final List<BullyMessage> SAMPLES = List.of(
            new Ping(4, 2, 7, 0),
            new Ack(4, 7, -9, 12),
            new ProbeRequest(-9, B, 7),
            new ProbeReport(-9, B, true),
            new Join(-42, CARD),
            new JoinAccepted(4, 7, 3, 12, 8, List.of(MEMBER)),
            new JoinRefused(4, JoinRefusal.ADDRESS_IN_USE),
            new Election(4, 2),
            new Answer(4, 7),
            new Coordinator(5, 7),
            new Table(5, 13, 8, List.of(MEMBER, new GroupMember(A, 3, 1, CARD, MemberState.ACTIVE, 0))),
            new Resign(5, true),
            new Leave(5));

    @Test
    void everyMessageRoundTrips() throws MalformedMessageException {
        for (BullyMessage message : SAMPLES) {
            assertThat(CODEC.decode(CODEC.encode(message))).isEqualTo(message);
        }
    }

    @Test
    void theSamplesCoverEveryMessageType() {
        assertThat(SAMPLES.stream().map(Object::getClass).collect(Collectors.toSet()))
                .containsExactlyInAnyOrderElementsOf(CODEC.subtypes().values());
    }

    @Test
    void theWireFormatIsPlainJsonWithTheSeedsMessageNames() {
        assertThat(new String(CODEC.encode(new Coordinator(5, 7)), StandardCharsets.UTF_8))
                .isEqualTo("{\"type\":\"Coordinator\",\"term\":5,\"pid\":7}");
    }

    @Test
    void anUnknownRefusalIsRefused() {
        byte[] bytes = "{\"type\":\"JoinRefused\",\"term\":1,\"reason\":\"GO_AWAY\"}".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> CODEC.decode(bytes)).isInstanceOf(MalformedMessageException.class);
    }
}

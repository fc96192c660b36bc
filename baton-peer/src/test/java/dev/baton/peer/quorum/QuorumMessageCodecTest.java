package dev.baton.peer.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.core.Capabilities;
import dev.baton.core.MemberState;
import dev.baton.peer.MemberCard;
import dev.baton.peer.quorum.QuorumMessage.*;
import dev.baton.peer.transport.JacksonMessageCodec;
import dev.baton.peer.transport.MalformedMessageException;
import dev.baton.peer.transport.PeerAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Every quorum message survives the wire codec unchanged, nullable fields included. */
class QuorumMessageCodecTest {

    private static final JacksonMessageCodec<QuorumMessage> CODEC = Quorum.codec();
    private static final PeerAddress A = PeerAddress.of("10.0.0.5", 7400);
    private static final PeerAddress B = PeerAddress.parse("[::1]:7401");
    private static final Ballot BALLOT = new Ballot(3, 2, A);
    private static final MemberEntry ENTRY = new MemberEntry(B, new MemberCard("orders-api", "http://b:8080",
            new Capabilities(true, 10, 50), Map.of("zone", "a")), MemberState.UNREACHABLE, 9, 1_700_000_000_000L,
            1_700_000_001_000L);

    private static final List<QuorumMessage> SAMPLES = List.of(
            new LeaderQuery(4),
            new LeaderResponse(A, 4),
            new LeaderResponse(null, 0),
            new JoinClusterRequest(ENTRY.card(), 4),
            new JoinClusterResponse(false, 4, null, "not the leader"),
            new JoinClusterResponse(true, 4, A, null),
            new MemberStatusUpdate(4, ENTRY),
            new ClusterAlignment(4, 9, List.of(ENTRY)),
            new LeaveCluster(4),
            new ReJoinCluster(4),
            new LeaderKeepAlive(4, 123, QuorumMessage.NO_STAMP, 9),
            new LeaderKeepAliveAck(4, 123, 456, 400_000_000L),
            new SeedKeepAlive(4),
            new SeedKeepAliveAck(4, null, 0),
            new LeaderRelieve(4, B, 5),
            new LeaderResign(4, null, true),
            new ProbeRequest(4, B, -7),
            new Probe(-7),
            new ProbeAck(-7),
            new ProbeReport(4, B, -7, true),
            new LeaderStatusQuery(4, 99),
            new LeaderStatusQueryResponse(99, true, A, 4, 1),
            new PreProposal(BALLOT, true),
            new PreVote(BALLOT, true, new Ballot(3, 1, B), B, Refusal.NONE, 0, null),
            new PreVote(BALLOT, false, null, null, Refusal.DECIDED, 3, B),
            new FormalProposal(BALLOT, B, false),
            new FormalVote(BALLOT, false, Refusal.HIGHER_BALLOT, 5, null),
            new NewLeader(3, B, QuorumMessage.NO_STAMP),
            new RecoveryQuery(11),
            new RecoveryResponse(11, 6, List.of(A, B)),
            new BarrierUpdate(11, 7),
            new BarrierAck(11));

    @Test
    void everyMessageRoundTrips() throws MalformedMessageException {
        for (QuorumMessage message : SAMPLES) {
            assertThat(CODEC.decode(CODEC.encode(message))).isEqualTo(message);
        }
    }

    @Test
    void theSamplesCoverEveryMessageType() {
        assertThat(SAMPLES.stream().map(Object::getClass).collect(Collectors.toSet()))
                .containsExactlyInAnyOrderElementsOf(CODEC.subtypes().values());
    }

    @Test
    void aMessageWithAnUnknownFieldIsRefused() {
        byte[] bytes = "{\"type\":\"LeaderQuery\",\"version\":1,\"extra\":2}".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> CODEC.decode(bytes)).isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("unknown field 'extra'");
    }
}

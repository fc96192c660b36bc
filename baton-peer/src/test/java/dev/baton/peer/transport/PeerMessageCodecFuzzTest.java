package dev.baton.peer.transport;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.baton.peer.bully.Bully;
import dev.baton.peer.bully.BullyMessage;
import dev.baton.peer.quorum.Quorum;
import dev.baton.peer.quorum.QuorumMessage;

/**
 * Fuzzes the peer protocols' message codecs ({@link JacksonMessageCodec} for the quorum and bully messages), which
 * decode every DATA frame an authenticated or unauthenticated peer sends: decoding yields a message or a
 * {@link MalformedMessageException}, never another exception, and a decoded message survives a round trip. Plain test
 * runs replay the inputs under {@code PeerMessageCodecFuzzTestInputs}; see docs/fuzzing.md for a campaign.
 */
class PeerMessageCodecFuzzTest {

    private static final JacksonMessageCodec<QuorumMessage> QUORUM = Quorum.codec();
    private static final JacksonMessageCodec<BullyMessage> BULLY = Bully.codec();

    @FuzzTest(maxDuration = "30s")
    void quorumMessage(byte[] input) throws MalformedMessageException {
        roundTrip(QUORUM, input);
    }

    @FuzzTest(maxDuration = "30s")
    void bullyMessage(byte[] input) throws MalformedMessageException {
        roundTrip(BULLY, input);
    }

    private static <M> void roundTrip(MessageCodec<M> codec, byte[] input) throws MalformedMessageException {
        M message;
        try {
            message = codec.decode(input);
        } catch (MalformedMessageException e) {
            assertThat(e.getMessage()).isNotBlank();
            return;
        }
        assertThat(codec.decode(codec.encode(message))).isEqualTo(message);
    }
}

package dev.baton.work.internal.route;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Fuzzes the work cluster's bus decoders, which read what any client of the shared Redis or PostgreSQL store
 * publishes: decoding yields a message (or listener card) or a {@link BusProtocolException}, never another exception,
 * and a decoded value survives a round trip. Plain test runs replay the inputs under {@code BusCodecFuzzTestInputs};
 * see docs/fuzzing.md for a campaign.
 */
class BusCodecFuzzTest {

    private final BusCodec codec = new BusCodec();

    @FuzzTest(maxDuration = "30s")
    void decode(byte[] input) throws BusProtocolException {
        BusMessage message;
        try {
            message = codec.decode(input);
        } catch (BusProtocolException e) {
            assertThat(e.getMessage()).isNotBlank();
            return;
        }
        assertThat(codec.decode(codec.encode(message))).isEqualTo(message);
    }

    @FuzzTest(maxDuration = "30s")
    void decodeCard(byte[] input) throws BusProtocolException {
        ListenerCard card;
        try {
            card = codec.decodeCard(input);
        } catch (BusProtocolException e) {
            assertThat(e.getMessage()).isNotBlank();
            return;
        }
        assertThat(codec.decodeCard(codec.encodeCard(card))).isEqualTo(card);
    }
}

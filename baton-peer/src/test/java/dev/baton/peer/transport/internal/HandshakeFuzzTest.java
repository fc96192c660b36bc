package dev.baton.peer.transport.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Fuzzes the handshake readers on a frame's payload (after its type byte), the frames a stranger may send before it
 * has proved anything: each yields a value or a {@link FrameException}, and a close notice never fails. The first
 * input byte picks the reader. Plain test runs replay the inputs under {@code HandshakeFuzzTestInputs}; see
 * docs/fuzzing.md for a campaign.
 */
class HandshakeFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void read(byte[] input) {
        if (input.length == 0) {
            return;
        }
        ByteBuf payload = Unpooled.wrappedBuffer(input, 1, input.length - 1);
        try {
            Object value = switch (Math.floorMod(input[0], 5)) {
                case 0 -> Handshake.readActiveGreet(payload);
                case 1 -> Handshake.readPassiveGreet(payload);
                case 2 -> Handshake.readAuthChallenge(payload);
                case 3 -> Handshake.readAuthResponse(payload);
                default -> Handshake.readCloseNotice(payload);
            };
            assertThat(value).isNotNull();
        } catch (FrameException e) {
            assertThat(e.reason()).isNotNull();
            assertThat(e.getMessage()).isNotBlank();
        } finally {
            payload.release();
        }
    }
}

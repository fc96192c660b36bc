package dev.baton.work.internal.worker;

import dev.baton.work.worker.WorkerMessage;
import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Fuzzes the worker protocol's decoders, which read what a worker (or anything that reached its WebSocket) sends:
 * decoding yields a message or a {@link WorkerProtocolException}, never another exception, and a decoded message
 * survives a round trip. Plain test runs replay the inputs under {@code WorkerProtocolFuzzTestInputs}; see
 * docs/fuzzing.md for a campaign.
 */
class WorkerProtocolFuzzTest {

    private final WorkerProtocolCodec codec = new WorkerProtocolCodec();

    @FuzzTest(maxDuration = "30s")
    void decodeMessage(byte[] input) throws WorkerProtocolException {
        String json = new String(input, StandardCharsets.UTF_8);
        WorkerMessage message;
        try {
            message = codec.decodeMessage(json);
        } catch (WorkerProtocolException e) {
            assertThat(e.getMessage()).isNotBlank();
            return;
        }
        assertThat(codec.decodeMessage(codec.encode(message))).isEqualTo(message);
    }

    @FuzzTest(maxDuration = "30s")
    void decodeCommand(byte[] input) throws WorkerProtocolException {
        String json = new String(input, StandardCharsets.UTF_8);
        FencedCommand command;
        try {
            command = codec.decodeFencedCommand(json);
        } catch (WorkerProtocolException e) {
            assertThat(e.getMessage()).isNotBlank();
            return;
        }
        assertThat(codec.decodeFencedCommand(codec.encode(command.command(), command.leaderTerm())))
                .isEqualTo(command);
        assertThat(codec.decodeCommand(json)).isEqualTo(command.command());
    }
}

package dev.baton.peer.testing;

import com.fasterxml.jackson.annotation.JsonTypeName;
import dev.baton.peer.transport.JacksonMessageCodec;

/** A small message family for the transport and network tests. */
public sealed interface TestMessage {

    JacksonMessageCodec<TestMessage> CODEC = JacksonMessageCodec.forSealed(TestMessage.class);

    record Ping(int n, String text) implements TestMessage {
    }

    record Pong(int n) implements TestMessage {
    }

    /** Nested family, to check that the codec walks it. */
    sealed interface Control extends TestMessage {
    }

    @JsonTypeName("stop")
    record Stop(String reason) implements Control {
    }

    static Ping ping(int n) {
        return new Ping(n, "ping " + n);
    }
}

package dev.baton.peer.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.peer.testing.TestMessage;
import dev.baton.peer.testing.TestMessage.Ping;
import dev.baton.peer.testing.TestMessage.Pong;
import dev.baton.peer.testing.TestMessage.Stop;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JacksonMessageCodecTest {

    private final JacksonMessageCodec<TestMessage> codec = TestMessage.CODEC;

    @Test
    void findsEveryRecordOfTheSealedFamilyIncludingNestedOnes() {
        assertThat(codec.subtypes()).containsOnlyKeys("Ping", "Pong", "stop");
    }

    @Test
    void roundTripsEveryMessageWithATypeTag() throws Exception {
        for (TestMessage message : new TestMessage[] {new Ping(7, "hello"), new Pong(3), new Stop("done"), new Ping(1, null)}) {
            byte[] bytes = codec.encode(message);
            assertThat(codec.decode(bytes)).isEqualTo(message);
        }
        assertThat(new String(codec.encode(new Pong(3)), StandardCharsets.UTF_8)).isEqualTo("{\"type\":\"Pong\",\"n\":3}");
        assertThat(new String(codec.encode(new Stop("x")), StandardCharsets.UTF_8)).contains("\"type\":\"stop\"");
    }

    @Test
    void refusesAnUnknownType() {
        assertMalformed("{\"type\":\"Nope\",\"n\":1}", "unknown message type 'Nope'");
    }

    @Test
    void refusesAMissingTypeTag() {
        assertMalformed("{\"n\":1}", "missing type tag 'type'");
    }

    @Test
    void refusesAnUnknownField() {
        assertMalformed("{\"type\":\"Pong\",\"n\":1,\"extra\":true}", "unknown field 'extra' in Pong");
    }

    @Test
    void refusesAMissingField() {
        assertMalformed("{\"type\":\"Pong\"}", "Pong");
    }

    @Test
    void refusesNullForAPrimitiveAndWrongTypes() {
        assertMalformed("{\"type\":\"Pong\",\"n\":null}", "Pong");
        assertMalformed("{\"type\":\"Pong\",\"n\":\"3\"}", "Pong");
    }

    @Test
    void refusesBytesThatAreNotOneJsonMessage() {
        assertMalformed("not json", "not valid JSON");
        assertMalformed("{\"type\":\"Pong\",\"n\":1} {}", "invalid");
        assertMalformed("null", "null");
        assertMalformed("{\"type\":\"Pong\",\"n\":1,\"n\":2}", "Duplicate field 'n'");
        assertThatThrownBy(() -> codec.decode(new byte[0])).isInstanceOf(MalformedMessageException.class)
                .hasMessage("empty payload");
    }

    @Test
    void refusesToEncodeATypeItDoesNotKnow() {
        JacksonMessageCodec<TestMessage> onlyPings = JacksonMessageCodec.builder(TestMessage.class).register(Ping.class).build();
        assertThatThrownBy(() -> onlyPings.encode(new Pong(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a registered TestMessage type");
    }

    sealed interface Clashing {
        record A(String type) implements Clashing {
        }
    }

    interface Open {
    }

    record OpenA(int x) implements Open {
    }

    record OpenB(int x) implements Open {
    }

    @Test
    void refusesFamiliesItCannotEncodeUnambiguously() {
        assertThatThrownBy(() -> JacksonMessageCodec.forSealed(Clashing.class))
                .hasMessageContaining("component named 'type'");
        assertThatThrownBy(() -> JacksonMessageCodec.forSealed(Open.class)).hasMessageContaining("is not sealed");
        assertThatThrownBy(() -> JacksonMessageCodec.builder(Open.class).register("x", OpenA.class).register("x", OpenB.class))
                .hasMessageContaining("type tag 'x' is used by both");
        assertThatThrownBy(() -> JacksonMessageCodec.builder(Open.class).build()).hasMessageContaining("no message types");
    }

    @Test
    void builderRegisteredFamiliesWorkWithoutSealing() throws Exception {
        JacksonMessageCodec<Open> open = JacksonMessageCodec.builder(Open.class)
                .register("a", OpenA.class).register("b", OpenB.class).build();
        assertThat(open.decode(open.encode(new OpenB(4)))).isEqualTo(new OpenB(4));
        assertThat(new String(open.encode(new OpenA(1)), StandardCharsets.UTF_8)).isEqualTo("{\"type\":\"a\",\"x\":1}");
    }

    private void assertMalformed(String json, String reason) {
        assertThatThrownBy(() -> codec.decode(json.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining(reason);
    }
}

package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.core.store.FencedValue;
import dev.baton.redis.internal.FencedEntryCodec;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class FencedEntryCodecTest {

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void anEntryIsTheTermTheWritersLengthTheWriterAndTheValue() {
        assertThat(new String(FencedEntryCodec.encode(1767225600000001L, "a", bytes("on")), StandardCharsets.UTF_8))
                .isEqualTo("1767225600000001:1:aon");
    }

    @Test
    void writersAndValuesWithSeparatorsAndAnyBytesSurviveTheRoundTrip() {
        byte[] value = {0, ':', (byte) 0xff, '1', ':', 7};
        FencedValue entry = new FencedValue(Long.MAX_VALUE, "node:7 \u00e9t\u00e9", value);

        assertThat(FencedEntryCodec.decode(FencedEntryCodec.encode(entry.term(), entry.writer(), entry.value())))
                .isEqualTo(entry);
        assertThat(FencedEntryCodec.decode(FencedEntryCodec.encode(3, "", new byte[0])))
                .isEqualTo(new FencedValue(3, "", new byte[0]));
    }

    @Test
    void malformedEntriesAreRejected() {
        assertThatThrownBy(() -> FencedEntryCodec.decode(bytes("just a value")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("header");
        assertThatThrownBy(() -> FencedEntryCodec.decode(bytes("x:1:a")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("term");
        assertThatThrownBy(() -> FencedEntryCodec.decode(bytes("5:-1:a")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("writer length");
        assertThatThrownBy(() -> FencedEntryCodec.decode(bytes("5:9:abc")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shorter");
    }
}

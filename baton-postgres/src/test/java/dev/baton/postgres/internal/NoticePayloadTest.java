package dev.baton.postgres.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.core.store.LeaseNotice;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class NoticePayloadTest {

    @Test
    void leaseNoticesReadAsTheSeedsWords() {
        String payload = NoticePayload.prefix(NoticePayload.Kind.LEASE, "orders")
                + new LeaseNotice(LeaseNotice.Kind.ACQUIRED, "node-a", 7).encode();

        assertThat(payload).isEqualTo("lease 6:orders acquired 7 node-a");
        NoticePayload decoded = NoticePayload.decode(payload);
        assertThat(decoded.kind()).isEqualTo(NoticePayload.Kind.LEASE);
        assertThat(decoded.name()).isEqualTo("orders");
        assertThat(LeaseNotice.decode(decoded.body())).isEqualTo(new LeaseNotice(LeaseNotice.Kind.ACQUIRED, "node-a", 7));
    }

    @Test
    void namesMayHoldSpacesColonsNewlinesAndAnyCharacter() {
        for (String name : new String[] {"a b", "x:1 2:y", "line\nbreak", "\u00e9t\u00e9 \uD83D\uDE00", "12:"}) {
            NoticePayload payload = new NoticePayload(NoticePayload.Kind.MEMBER, name, "registered n 1");

            assertThat(NoticePayload.decode(payload.encode())).isEqualTo(payload);
        }
    }

    @Test
    void messagesCarryAnyBytesAsBase64() {
        byte[] bytes = {0, 1, (byte) 0xff, '\n', ' '};
        NoticePayload payload = NoticePayload.message("worker:slave:n1", bytes);

        NoticePayload decoded = NoticePayload.decode(payload.encode());

        assertThat(decoded.kind()).isEqualTo(NoticePayload.Kind.MESSAGE);
        assertThat(decoded.name()).isEqualTo("worker:slave:n1");
        assertThat(decoded.messageBytes()).containsExactly(bytes);
        assertThat(NoticePayload.decode(NoticePayload.message("c", new byte[0]).encode()).messageBytes()).isEmpty();
    }

    @Test
    void foreignPayloadsAreRejected() {
        assertThatThrownBy(() -> NoticePayload.decode("hello")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NoticePayload.decode("other 1:a b")).hasMessageContaining("unknown payload kind");
        assertThatThrownBy(() -> NoticePayload.decode("lease x:a b")).hasMessageContaining("name length");
        assertThatThrownBy(() -> NoticePayload.decode("lease 9:a b")).hasMessageContaining("does not fit");
        // Found by NoticePayloadFuzzTest: the end of the name used to wrap around to a negative index.
        assertThatThrownBy(() -> NoticePayload.decode("lease 2147483647:a x")).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not fit");
        assertThat(NoticePayload.byteLength("\u00e9")).isEqualTo("\u00e9".getBytes(StandardCharsets.UTF_8).length);
    }
}

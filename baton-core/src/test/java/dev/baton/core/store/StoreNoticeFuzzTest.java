package dev.baton.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Fuzzes the text notices that Redis and PostgreSQL deliver to every subscriber: whatever another client publishes on
 * the channel, decoding yields a notice or an {@link IllegalArgumentException}, and a decoded notice survives a round
 * trip. Plain test runs replay the inputs under {@code StoreNoticeFuzzTestInputs}; see docs/fuzzing.md for a campaign.
 */
class StoreNoticeFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void leaseNotice(byte[] input) {
        String text = new String(input, StandardCharsets.UTF_8);
        LeaseNotice notice;
        try {
            notice = LeaseNotice.decode(text);
        } catch (IllegalArgumentException e) {
            assertThat(e.getMessage()).isNotBlank();
            return;
        }
        assertThat(LeaseNotice.decode(notice.encode())).isEqualTo(notice);
    }

    @FuzzTest(maxDuration = "30s")
    void memberNotice(byte[] input) {
        String text = new String(input, StandardCharsets.UTF_8);
        MemberNotice notice;
        try {
            notice = MemberNotice.decode(text);
        } catch (IllegalArgumentException e) {
            assertThat(e.getMessage()).isNotBlank();
            return;
        }
        assertThat(MemberNotice.decode(notice.encode())).isEqualTo(notice);
    }
}

package dev.baton.peer.bully;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BullyConfigTest {

    @Test
    void theDefaultProfileKeepsTheSeedsJoinLoop() {
        BullyConfig defaults = BullyConfig.profile("default").build();
        assertThat(defaults.pingInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(defaults.suspectAfter()).isEqualTo(3);
        assertThat(defaults.joinAttempts()).isEqualTo(4);
        assertThat(defaults.readsPerAttempt()).isEqualTo(3);
        assertThat(defaults.joinPauseMax()).isEqualTo(Duration.ofSeconds(1));
        assertThat(defaults.addressInUsePause()).isEqualTo(Duration.ofSeconds(5));
        assertThat(defaults.holdDown()).isEqualTo(Duration.ofSeconds(30));
        assertThat(defaults.probeTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(defaults.detectionBound()).isEqualTo(Duration.ofSeconds(6));
        assertThat(defaults.leadershipValidity()).isEqualTo(Duration.ofSeconds(6));
    }

    @Test
    void theFastProfileDetectsWithinAbout600Milliseconds() {
        BullyConfig fast = BullyConfig.profile("fast").build();
        assertThat(fast.pingInterval()).isEqualTo(Duration.ofMillis(100));
        assertThat(fast.detectionBound()).isEqualTo(Duration.ofMillis(600));
        assertThat(fast.electionTimeout()).isEqualTo(Duration.ofMillis(200));
        assertThat(fast.leadershipValidity()).isEqualTo(Duration.ofMillis(750));
        assertThat(fast.toBuilder().build().toString()).isEqualTo(fast.toString());
    }

    @Test
    void anUnknownProfileIsNamed() {
        assertThatThrownBy(() -> BullyConfig.profile("slow")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown profile 'slow' (expected default or fast)");
    }

    @Test
    void invalidValuesNameTheField() {
        assertThatThrownBy(() -> BullyConfig.defaults().pingInterval(Duration.ZERO).build())
                .hasMessage("pingInterval must be positive, was PT0S");
        assertThatThrownBy(() -> BullyConfig.defaults().suspectAfter(0).build())
                .hasMessage("suspectAfter must be within 1..100 missed pings, was 0");
        assertThatThrownBy(() -> BullyConfig.defaults().joinAttempts(0).build())
                .hasMessage("joinAttempts must be within 1..100, was 0");
        assertThatThrownBy(() -> BullyConfig.defaults().holdDown(Duration.ofSeconds(-1)).build())
                .hasMessage("holdDown must not be negative, was PT-1S");
        assertThatThrownBy(() -> BullyConfig.defaults().storeTimeout(Duration.ofSeconds(4)).build())
                .hasMessageStartingWith("storeTimeout (PT4S) must be below 2 x storeCheckInterval (PT2S)");
    }
}

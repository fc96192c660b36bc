package dev.baton.peer.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class QuorumConfigTest {

    private static final PeerAddress SEED = PeerAddress.of("10.0.0.5", 7400);

    @Test
    void theMajorityIsHalfTheClusterPlusOne() {
        assertThat(QuorumConfig.defaults().clusterSize(1).seeds(SEED).build().majority()).isEqualTo(1);
        assertThat(QuorumConfig.defaults().clusterSize(2).seeds(SEED).build().majority()).isEqualTo(2);
        assertThat(QuorumConfig.defaults().clusterSize(3).seeds(SEED).build().majority()).isEqualTo(2);
        assertThat(QuorumConfig.defaults().clusterSize(4).seeds(SEED).build().majority()).isEqualTo(3);
        assertThat(QuorumConfig.defaults().clusterSize(5).seeds(SEED).build().majority()).isEqualTo(3);
    }

    @Test
    void profilesHaveTheDocumentedTimings() {
        QuorumConfig defaults = QuorumConfig.profile("default").clusterSize(3).seeds(SEED).build();
        assertThat(defaults.heartbeatInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(defaults.heartbeatTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(defaults.ttlTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(defaults.retryInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(defaults.allowLoneSeedBootstrap()).isFalse();
        QuorumConfig fast = QuorumConfig.profile("fast").clusterSize(3).seeds(SEED).build();
        assertThat(fast.heartbeatInterval()).isEqualTo(Duration.ofMillis(100));
        assertThat(fast.heartbeatTimeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(fast.ttlTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(fast.giveUpAfter()).isEqualTo(Duration.ofSeconds(3));
        assertThat(fast.toBuilder().build().toString()).isEqualTo(fast.toString());
    }

    @Test
    void invalidValuesAreRefusedNamingTheField() {
        assertThatThrownBy(() -> QuorumConfig.defaults().seeds(SEED).build())
                .hasMessage("clusterSize must be at least 1, was 0");
        assertThatThrownBy(() -> QuorumConfig.defaults().clusterSize(3).build())
                .hasMessage("seeds must name at least one seed address");
        assertThatThrownBy(() -> QuorumConfig.defaults().clusterSize(1).seeds(SEED, PeerAddress.of("b", 1)).build())
                .hasMessage("seeds (2) cannot outnumber clusterSize (1)");
        assertThatThrownBy(() -> QuorumConfig.defaults().clusterSize(3).seeds(List.of(SEED, SEED)).build())
                .hasMessageStartingWith("seeds must not repeat an address");
        assertThatThrownBy(() -> QuorumConfig.defaults().clusterSize(3).seeds(SEED).heartbeatInterval(Duration.ZERO)
                .build()).hasMessage("heartbeatInterval must be positive, was PT0S");
        assertThatThrownBy(() -> QuorumConfig.defaults().clusterSize(3).seeds(SEED)
                .heartbeatTimeout(Duration.ofMillis(1500)).build())
                .hasMessage("heartbeatTimeout (PT1.5S) must be at least twice heartbeatInterval (PT1S)");
        assertThatThrownBy(() -> QuorumConfig.defaults().clusterSize(3).seeds(SEED).ttlTimeout(Duration.ofSeconds(5))
                .build()).hasMessageStartingWith("ttlTimeout (PT5S) must exceed heartbeatTimeout (PT5S)");
        assertThatThrownBy(() -> QuorumConfig.defaults().clusterSize(3).seeds(SEED).retryInterval(Duration.ofSeconds(10))
                .build()).hasMessageStartingWith("retryInterval (PT10S) must be shorter than ttlTimeout");
        assertThatThrownBy(() -> QuorumConfig.defaults().clusterSize(3).seeds(SEED).maxClockDrift(0.5).build())
                .hasMessage("maxClockDrift must be within [0, 0.2), was 0.5");
        assertThatThrownBy(() -> QuorumConfig.profile("slow")).hasMessageContaining("unknown profile 'slow'");
    }

    @Test
    void ttlMustCoverHeartbeatTimeoutWithTheDriftMargin() {
        // 500 ms x 1.01 / 0.99 = 510.1 ms: a TTL of 510 ms is not enough, 511 ms is.
        QuorumConfig.Builder builder = QuorumConfig.fast().clusterSize(3).seeds(SEED);
        assertThatThrownBy(() -> builder.ttlTimeout(Duration.ofMillis(510)).build())
                .hasMessageContaining("must exceed heartbeatTimeout");
        assertThat(builder.ttlTimeout(Duration.ofMillis(511)).build().ttlTimeout()).isEqualTo(Duration.ofMillis(511));
    }
}

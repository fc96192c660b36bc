package dev.baton.work;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.memory.InMemoryStore;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Bad input to the facade gets a one-line error naming the problem, before anything is sent. */
class WorkClusterValidationTest {

    private final InMemoryStore store = new InMemoryStore();
    private final Election election = Baton.election(store).group("cameras").recordEvents(false).build();
    private final WorkCluster cluster = WorkCluster.builder(election, store).workers(java.util.List.of("ws://w:1"))
            .build();

    @AfterEach
    void close() {
        cluster.close();
        election.close();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "camera-7|subscriptionIdentifier must be 'displayId;cameraId' (one ';' between two non-empty ids), was"
            + " 'camera-7'",
        "a;b;c|subscriptionIdentifier must be 'displayId;cameraId' (one ';' between two non-empty ids), was 'a;b;c'",
        ";camera-7|subscriptionIdentifier must be 'displayId;cameraId' with both ids non-blank, was ';camera-7'",
        "'display-1; '|subscriptionIdentifier must be 'displayId;cameraId' with both ids non-blank, was 'display-1; '"
    })
    void anIdentifierThatIsNotDisplayIdSemicolonCameraIdIsRefused(String id, String message) {
        cluster.start();
        WorkItem item = WorkItem.builder(id).rtspUrl("rtsp://cam/1").model(1, "plates").build();
        assertThatThrownBy(() -> cluster.subscribe(item)).isInstanceOf(InvalidWorkItemException.class)
                .hasMessage(message);
    }

    @Test
    void fieldsAreCheckedWhenTheItemIsBuilt() {
        WorkItem.Builder item = WorkItem.builder("d1;c1").rtspUrl("rtsp://cam/1").model(1, "plates");
        assertThatThrownBy(() -> item.crop(10, 10, 10, 20).build()).isInstanceOf(InvalidWorkItemException.class)
                .hasMessage("cropX2 must be greater than cropX1 (10), was 10");
        assertThatThrownBy(() -> item.crop(0, 50, 10, 40).build()).hasMessage(
                "cropY2 must be greater than cropY1 (50), was 40");
        assertThatThrownBy(() -> WorkItem.builder("d1;c1").rtspUrl("http://cam/1").model(1, "m").build())
                .hasMessage("rtspUrl must be an absolute rtsp:// or rtsps:// URL with a host, was 'http://cam/1'");
        assertThatThrownBy(() -> WorkItem.builder("d1;c1").rtspUrl("rtsp://cam/1").model(0, "m").build())
                .hasMessage("modelId must be at least 1, was 0");
        assertThatThrownBy(() -> WorkItem.builder("d1;c1").rtspUrl("rtsp://cam/1").model(1, "m")
                .snapshot("http://cam/snap", Duration.ZERO).build())
                .hasMessage("snapshotInterval must be at least 1 (milliseconds), was 0");
        assertThat(WorkItem.builder("d1;c1").rtspUrl("rtsp://cam/1").model(1, "m").crop(0, 0, 640, 480).build()
                .hasCrop()).isTrue();
    }

    @Test
    void callsBeforeStartOrAfterCloseAreRefused() {
        WorkItem item = WorkItem.builder("d1;c1").rtspUrl("rtsp://cam/1").model(1, "plates").build();
        assertThatThrownBy(() -> cluster.subscribe(item)).isInstanceOf(IllegalStateException.class)
                .hasMessage("the work cluster is not started: call start() first");
        cluster.start();
        cluster.close();
        assertThatThrownBy(() -> cluster.unsubscribe("d1;c1")).hasMessage("the work cluster is closed");
        assertThatThrownBy(() -> cluster.unsubscribeAllWithCameraId("a;b")).isInstanceOf(InvalidWorkItemException.class)
                .hasMessage("cameraId must be non-blank and contain no ';', was 'a;b'");
    }

    @Test
    void workerUrlsAreChecked() {
        WorkCluster.Builder builder = WorkCluster.builder(election, store);
        assertThatIllegalArgumentException().isThrownBy(() -> builder.worker("http://w:1"))
                .withMessage("worker URL must be ws://HOST:PORT or wss://HOST:PORT, was 'http://w:1'");
        assertThatIllegalArgumentException().isThrownBy(() -> builder.worker("ws://w:1").worker("ws://w:1"))
                .withMessage("worker URL 'ws://w:1' is listed twice");
        assertThatIllegalArgumentException().isThrownBy(() -> builder.worker("ws://bad host"))
                .withMessageStartingWith("worker URL 'ws://bad host' is not a URL");
    }

    @Test
    void theMapsAndTheBusMayComeApartButNeitherMayBeMissing() {
        assertThatThrownBy(() -> WorkCluster.builder(election, null, store.bus()))
                .isInstanceOf(NullPointerException.class).hasMessage("maps");
        assertThatThrownBy(() -> WorkCluster.builder(election, store.maps(), null))
                .isInstanceOf(NullPointerException.class).hasMessage("bus");
        assertThatThrownBy(() -> WorkCluster.builder(null, store))
                .isInstanceOf(NullPointerException.class).hasMessage("election");
        try (WorkCluster apart = WorkCluster.builder(election, store.maps(), store.bus()).build()) {
            assertThat(apart.group()).isEqualTo("cameras");
            assertThat(apart.state()).isEqualTo(WorkCluster.State.NEW);
        }
    }

    @Test
    void settingsAreCheckedWithTheFieldNamed() {
        assertThatIllegalArgumentException().isThrownBy(() -> WorkClusterConfig.builder()
                .reconcileInterval(Duration.ZERO).build()).withMessage("reconcileInterval must be positive, was PT0S");
        assertThatIllegalArgumentException().isThrownBy(() -> WorkClusterConfig.builder()
                .retryInitial(Duration.ofSeconds(10)).retryMax(Duration.ofSeconds(5)).build())
                .withMessage("retryMax (PT5S) must be at least retryInitial (PT10S)");
        assertThatIllegalArgumentException().isThrownBy(() -> WorkClusterConfig.builder().commandsPerSecond(0)
                .build()).withMessage("commandsPerSecond must be positive and finite, was 0.0");
        assertThatIllegalArgumentException().isThrownBy(() -> WorkClusterConfig.builder()
                .ackDelay(Duration.ofSeconds(2)).build()).withMessageStartingWith("ackDelay (PT2S) must be shorter");
        WorkClusterConfig fast = WorkClusterConfig.fast();
        assertThat(fast.toBuilder().build().toString()).isEqualTo(fast.toString());
    }
}

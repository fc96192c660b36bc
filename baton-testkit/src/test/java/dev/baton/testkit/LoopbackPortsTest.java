package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoopbackPortsTest {

    @Test
    void portsAreDistinctBindableAndBelowTheRangeOutgoingConnectionsUse() throws IOException {
        List<Integer> ports = LoopbackPorts.free(20);

        assertThat(ports).doesNotHaveDuplicates().hasSize(20);
        if (LoopbackPorts.ephemeralLow() > 12_000) {
            assertThat(ports).allSatisfy(port -> assertThat(port).isBetween(10_000, LoopbackPorts.ephemeralLow() - 1));
        }
        for (int port : ports) {
            try (ServerSocket server = new ServerSocket()) {
                server.setReuseAddress(false);
                server.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port));
            }
        }
    }

    @Test
    void askingForNoPortIsAnError() {
        assertThatThrownBy(() -> LoopbackPorts.free(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1");
    }
}

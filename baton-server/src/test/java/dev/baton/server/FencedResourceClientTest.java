package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.core.Leadership;
import dev.baton.core.store.FencedWriteResult;
import dev.baton.core.time.Clock;
import dev.baton.server.chaos.FenceResource;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The external fenced resource of the fault harness, both sides over a real loopback socket: {@link FenceResource}
 * deciding, {@link FenceClient} (the node's {@code --fenced-writes-to}) asking, reconnecting, and reporting a write
 * that got no answer as one of unknown outcome.
 */
class FencedResourceClientTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable closeable : open) {
            closeable.close();
        }
    }

    @Test
    void aFencingResourceRefusesATermBelowOneItAdmitted() throws Exception {
        FenceResource resource = keep(FenceResource.start(true));
        FenceClient oldLeader = client(resource.port());
        FenceClient newLeader = client(resource.port());

        assertThat(oldLeader.write(leadership("a", 3), 1, TIMEOUT)).isEqualTo(new FencedWriteResult(true, 3));
        assertThat(newLeader.write(leadership("b", 4), 1, TIMEOUT)).isEqualTo(new FencedWriteResult(true, 4));
        assertThat(oldLeader.write(leadership("a", 3), 2, TIMEOUT)).isEqualTo(new FencedWriteResult(false, 4));
        assertThat(newLeader.write(leadership("b", 4), 2, TIMEOUT)).isEqualTo(new FencedWriteResult(true, 4));

        assertThat(resource.highestTerm()).isEqualTo(4);
        assertThat(resource.admitted()).isEqualTo(3);
        assertThat(resource.refused()).isEqualTo(1);
    }

    @Test
    void aResourceWithoutFencingAcceptsEveryWrite() throws Exception {
        FenceResource resource = keep(FenceResource.start(false));
        FenceClient client = client(resource.port());

        client.write(leadership("b", 4), 1, TIMEOUT);
        FencedWriteResult stale = client.write(leadership("a", 3), 1, TIMEOUT);

        assertThat(stale).isEqualTo(new FencedWriteResult(true, 4));
        assertThat(resource.refused()).isZero();
        assertThat(resource.admitted()).isEqualTo(2);
    }

    @Test
    void aMalformedRequestIsAnsweredWithAnErrorOnTheSameConnection() throws IOException {
        FenceResource resource = keep(FenceResource.start(true));
        try (Socket raw = new Socket("127.0.0.1", resource.port())) {
            raw.setSoTimeout((int) TIMEOUT.toMillis());
            BufferedReader in = new BufferedReader(new InputStreamReader(raw.getInputStream(), StandardCharsets.UTF_8));
            OutputStream out = raw.getOutputStream();

            out.write("write x n 1\nhello\n\nwrite 7 n 1\nwrite 6 n 2\n".getBytes(StandardCharsets.UTF_8));
            out.flush();

            assertThat(in.readLine()).startsWith("error ");
            assertThat(in.readLine()).startsWith("error ");
            assertThat(in.readLine()).isEqualTo("ok 7");
            assertThat(in.readLine()).isEqualTo("refused 7");
        }
        assertThat(resource.address()).isEqualTo("127.0.0.1:" + resource.port());
    }

    @Test
    void aWriteThatGetsNoAnswerInTimeHasAnUnknownOutcomeAndTheClientReconnects() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 5, InetAddress.getByName("127.0.0.1"))) {
            FenceClient client = client(silent.getLocalPort());

            assertThatThrownBy(() -> client.write(leadership("a", 1), 1, Duration.ofMillis(200)))
                    .isInstanceOf(FencedDestination.NoAnswer.class).hasMessageContaining("no answer within 200 ms");
            try (Socket first = silent.accept()) {
                // The client dropped its connection after the timeout, so the next write opens a new one.
                assertThatThrownBy(() -> client.write(leadership("a", 1), 2, Duration.ofMillis(200)))
                        .isInstanceOf(FencedDestination.NoAnswer.class);
                try (Socket second = silent.accept()) {
                    assertThat(second.getPort()).isNotEqualTo(first.getPort());
                }
            }
        }
    }

    @Test
    void aResourceThatIsGoneIsAFailedWriteNotAnAnswer() throws IOException {
        int port;
        try (ServerSocket gone = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            port = gone.getLocalPort();
        }
        FenceClient client = client(port);

        assertThatThrownBy(() -> client.write(leadership("a", 1), 1, TIMEOUT))
                .isInstanceOf(FencedDestination.NoAnswer.class).hasMessageContaining("127.0.0.1:" + port);
    }

    private FenceClient client(int port) {
        return keep(new FenceClient(new ChaosSettings.FenceAddress("127.0.0.1", port)));
    }

    private <T extends AutoCloseable> T keep(T closeable) {
        open.add(closeable);
        return closeable;
    }

    private static Leadership leadership(String node, long term) {
        return new Leadership("g", node, term, Long.MAX_VALUE, Clock.system(), t -> true);
    }
}

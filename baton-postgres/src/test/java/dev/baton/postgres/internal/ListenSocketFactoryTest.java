package dev.baton.postgres.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ListenSocketFactoryTest {

    @Test
    void aPeekWithNothingArrivedEndsAsATimeoutAndLaterBytesAreStillRead() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Socket socket = new ListenSocketFactory().createSocket(InetAddress.getLoopbackAddress(),
                        server.getLocalPort());
                Socket peer = server.accept()) {
            InputStream in = socket.getInputStream();
            socket.setSoTimeout(ListenSocketFactory.PEEK_TIMEOUT_MILLIS);
            assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class)
                    .hasMessageContaining("nothing pending");

            peer.getOutputStream().write(new byte[] {'A', 'B'});
            peer.getOutputStream().flush();
            await().atMost(Duration.ofSeconds(10)).until(() -> in.available() > 0);
            assertThat(in.read()).isEqualTo('A');

            socket.setSoTimeout(0);
            assertThat(in.read()).isEqualTo('B');
        }
    }

    @Test
    void aReadWithALongerTimeoutWaitsOnTheSocketAsUsual() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Socket socket = new ListenSocketFactory().createSocket(InetAddress.getLoopbackAddress(),
                        server.getLocalPort());
                Socket peer = server.accept()) {
            socket.setSoTimeout(20);
            assertThatThrownBy(() -> socket.getInputStream().read())
                    .isInstanceOf(SocketTimeoutException.class)
                    .hasMessageNotContaining("nothing pending");
            assertThat(peer.isConnected()).isTrue();
        }
    }

    @Test
    void theListenConnectionUsesItUnlessTheUriNamesAFactory() throws Exception {
        PgTarget target = PgTarget.parse("postgresql://u@127.0.0.1:1/db", "uri");
        assertThat(properties(PgDataSource.forListening(target, Duration.ofSeconds(1), Duration.ofSeconds(1), "t"))
                .getProperty("socketFactory")).isEqualTo(ListenSocketFactory.class.getName());
        assertThat(properties(PgDataSource.of(target, Duration.ofSeconds(1), Duration.ofSeconds(1), "t"))
                .getProperty("socketFactory")).isNull();
        PgTarget own = PgTarget.parse("postgresql://u@127.0.0.1:1/db?socketFactory=com.example.Own", "uri");
        assertThat(properties(PgDataSource.forListening(own, Duration.ofSeconds(1), Duration.ofSeconds(1), "t"))
                .getProperty("socketFactory")).isEqualTo("com.example.Own");
    }

    private static Properties properties(PgDataSource source) {
        return source.properties();
    }
}

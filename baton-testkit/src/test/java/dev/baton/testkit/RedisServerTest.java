package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisServerTest {

    private static final Duration SHORT = Duration.ofMillis(300);
    private static final Duration GENEROUS = Duration.ofSeconds(2);

    @Test
    void startedServerAnswersPingOnLoopback() {
        try (RedisServer redis = RedisServer.start()) {
            assertThat(redis.host()).isEqualTo("127.0.0.1");
            assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + redis.port());
            assertThat(redis.isRunning()).isTrue();
            assertThat(redis.pid()).isPositive();
            assertThat(RespProbe.ping(redis.host(), redis.port(), GENEROUS)).isTrue();
        }
    }

    @Test
    void pausedServerDoesNotAnswerUntilResumed() {
        try (RedisServer redis = RedisServer.start()) {
            redis.pause();
            assertThat(redis.isRunning()).isTrue();
            assertThat(RespProbe.ping(redis.host(), redis.port(), SHORT)).isFalse();

            redis.resume();
            assertThat(RespProbe.ping(redis.host(), redis.port(), GENEROUS)).isTrue();
        }
    }

    @Test
    void killedServerRestartsOnTheSamePortWithoutItsData() throws IOException {
        try (RedisServer redis = RedisServer.start()) {
            int port = redis.port();
            long firstPid = redis.pid();
            assertThat(command(port, "SET", "k", "v")).isEqualTo("+OK");

            redis.kill();
            assertThat(redis.isRunning()).isFalse();
            assertThat(RespProbe.ping(redis.host(), port, SHORT)).isFalse();

            redis.restart();
            assertThat(redis.port()).isEqualTo(port);
            assertThat(redis.pid()).isNotEqualTo(firstPid);
            assertThat(RespProbe.ping(redis.host(), port, GENEROUS)).isTrue();
            assertThat(command(port, "EXISTS", "k")).isEqualTo(":0");
        }
    }

    @Test
    void persistentServerKeepsDataAcrossAGracefulRestart() throws IOException {
        try (RedisServer redis = RedisServer.builder().persistence(true).start()) {
            assertThat(command(redis.port(), "SET", "k", "v")).isEqualTo("+OK");

            redis.stop();
            redis.restart();

            assertThat(command(redis.port(), "EXISTS", "k")).isEqualTo(":1");
        }
    }

    @Test
    void pausedServerCanBeStopped() {
        try (RedisServer redis = RedisServer.start()) {
            redis.pause();
            redis.stop();
            assertThat(redis.isRunning()).isFalse();
        }
    }

    @Test
    void closeStopsTheServerAndRemovesItsDirectoryAndIsIdempotent() {
        RedisServer redis = RedisServer.start();
        Path dir = redis.directory();
        assertThat(dir).isDirectory();

        redis.close();
        redis.close();

        assertThat(redis.isRunning()).isFalse();
        assertThat(Files.exists(dir)).isFalse();
        assertThatThrownBy(redis::restart).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void portAlreadyTakenFailsWithTheLogTail() {
        try (RedisServer first = RedisServer.start()) {
            assertThatThrownBy(() -> RedisServer.builder().port(first.port()).start())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("log tail")
                    .hasMessageContaining("in use");
        }
    }

    @Test
    void binaryIsAnExecutable() {
        assertThat(Files.isExecutable(RedisServer.binary())).isTrue();
    }

    /** Sends one command as a RESP array and returns the first line of the reply. */
    private static String command(int port, String... args) throws IOException {
        StringBuilder request = new StringBuilder("*").append(args.length).append("\r\n");
        for (String arg : args) {
            request.append('$').append(arg.getBytes(StandardCharsets.UTF_8).length).append("\r\n")
                    .append(arg).append("\r\n");
        }
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout((int) GENEROUS.toMillis());
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) != -1 && c != '\r') {
                line.append((char) c);
            }
            return line.toString();
        }
    }
}

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
    void restartFromASnapshotBringsBackTheStateWhenItWasTaken() throws IOException {
        try (RedisServer redis = RedisServer.start()) {
            int port = redis.port();
            long firstPid = redis.pid();
            call(redis, "SET", "k", "old");
            RedisServer.Snapshot snapshot = redis.snapshot();
            call(redis, "SET", "k", "new");
            call(redis, "SET", "later", "x");

            redis.restartFrom(snapshot);

            assertThat(redis.port()).isEqualTo(port);
            assertThat(redis.pid()).isNotEqualTo(firstPid);
            assertThat(call(redis, "GET", "k")).isEqualTo("old");
            assertThat(call(redis, "EXISTS", "later")).isEqualTo("0");
        }
    }

    @Test
    void aSnapshotCanBeRestoredTwiceAndAPlainRestartStillStartsEmpty() throws IOException {
        try (RedisServer redis = RedisServer.start()) {
            call(redis, "SET", "k", "old");
            RedisServer.Snapshot snapshot = redis.snapshot();

            redis.restart();
            assertThat(call(redis, "EXISTS", "k")).as("restart() never loads a snapshot").isEqualTo("0");

            redis.restartFrom(snapshot);
            call(redis, "SET", "k", "changed");
            redis.restartFrom(snapshot);
            assertThat(call(redis, "GET", "k")).isEqualTo("old");

            redis.kill();
            redis.restart();
            assertThat(call(redis, "EXISTS", "k")).isEqualTo("0");
        }
    }

    @Test
    void anAppendOnlyServerRestoredFromASnapshotKeepsThatStateAcrossLaterRestarts() throws IOException {
        try (RedisServer redis = RedisServer.builder().appendOnly(true).start()) {
            assertThat(redis.isAppendOnly()).isTrue();
            call(redis, "SET", "k", "old");
            RedisServer.Snapshot snapshot = redis.snapshot();
            call(redis, "SET", "k", "new");

            redis.restartFrom(snapshot);
            assertThat(call(redis, "GET", "k")).isEqualTo("old");
            call(redis, "SET", "after", "1");

            redis.stop();
            redis.restart();
            assertThat(call(redis, "GET", "k")).isEqualTo("old");
            assertThat(call(redis, "GET", "after")).isEqualTo("1");
        }
    }

    @Test
    void anAofCutAtAMarkKeepsTheWritesBeforeItAndLosesThoseAfter() throws IOException {
        try (RedisServer redis = RedisServer.builder().appendOnly(true).start()) {
            int port = redis.port();
            call(redis, "SET", "kept", "1");
            RedisServer.AofMark mark = redis.aofMark();
            call(redis, "SET", "lost", "2");
            call(redis, "SET", "kept", "overwritten");
            assertThat(redis.aofMark().length()).isGreaterThan(mark.length());

            redis.restartWithAofTruncatedTo(mark);

            assertThat(redis.port()).isEqualTo(port);
            assertThat(call(redis, "GET", "kept")).isEqualTo("1");
            assertThat(call(redis, "EXISTS", "lost")).isEqualTo("0");
        }
    }

    @Test
    void restartEmptyForgetsEverythingEvenWithAnAof() throws IOException {
        try (RedisServer redis = RedisServer.builder().appendOnly(true).start()) {
            int port = redis.port();
            call(redis, "SET", "k", "v");

            redis.restartEmpty();

            assertThat(redis.port()).isEqualTo(port);
            assertThat(call(redis, "EXISTS", "k")).isEqualTo("0");
            call(redis, "SET", "again", "v");
            redis.stop();
            redis.restart();
            assertThat(call(redis, "EXISTS", "again")).as("the AOF is still on").isEqualTo("1");
        }
    }

    @Test
    void snapshotsAndMarksBelongToTheServerThatTookThem() {
        try (RedisServer a = RedisServer.builder().appendOnly(true).start();
                RedisServer b = RedisServer.builder().appendOnly(true).start()) {
            RedisServer.Snapshot snapshot = a.snapshot();
            RedisServer.AofMark mark = a.aofMark();

            assertThatThrownBy(() -> b.restartFrom(snapshot)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not taken by");
            assertThatThrownBy(() -> b.restartWithAofTruncatedTo(mark))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not taken by");
            assertThat(b.isRunning()).as("a refused restart leaves the server alone").isTrue();
        }
    }

    @Test
    void anAofMarkNeedsAnAppendOnlyServer() {
        try (RedisServer redis = RedisServer.start()) {
            assertThatThrownBy(redis::aofMark).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("appendOnly(true)");
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

    private static String call(RedisServer redis, String... args) throws IOException {
        return RespProbe.call(redis.host(), redis.port(), GENEROUS, args);
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

package dev.baton.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** What the private server launchers ({@link RedisServer}, {@link PostgresServer}) share about their processes. */
final class ServerProcesses {

    private ServerProcesses() {
    }

    /** Waits up to {@code timeout} for {@code p} to exit; true if it did. */
    static boolean awaitExit(Process p, Duration timeout) {
        try {
            return p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !p.isAlive();
        }
    }

    /** Waits up to {@code millis} for the process to exit: a bounded pause that ends early if it dies. */
    static void waitQuietly(Process p, long millis, String what) {
        try {
            p.waitFor(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + what, e);
        }
    }

    /** A fixed pause before retrying a start on a port that a process that just exited may still hold. */
    static void pauseBeforeRetry(long millis, String what) {
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting " + what, e);
        }
    }

    /** A port on {@code host} that is free right now; on 127.0.0.1 one of {@link LoopbackPorts}. */
    static int freePort(String host) {
        if (host.equals("127.0.0.1")) {
            return LoopbackPorts.free(1).get(0);
        }
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(host))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free loopback port", e);
        }
    }

    /** Deletes {@code root} and everything below it, without following symbolic links out of it. */
    static void deleteRecursively(Path root) {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            List<Path> all = paths.sorted(Comparator.reverseOrder()).toList();
            for (Path path : all) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + root, e);
        }
    }
}

package dev.baton.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The start and the end every replicated topology ({@link RedisSentinelTopology}, {@link RedisClusterTopology},
 * {@link EtcdCluster}) shares: a fresh temporary directory, registration with {@link TopologyCleanup} so a forgotten
 * topology is stopped at JVM exit, the launch of its processes, and on a failed launch the topology closed (its
 * processes stopped, its directory deleted) before the failure goes on, or a fresh attempt when the failure is one a
 * second try can avoid (a port taken between being picked and being bound).
 */
final class TopologyLifecycle {

    private static final int LAUNCH_ATTEMPTS = 3;

    private TopologyLifecycle() {}

    /**
     * Creates a topology in a new temporary directory named {@code prefix…} and launches it, up to three times while
     * {@code retry} accepts the launch's failure.
     *
     * @param what   what the directory is for, in the error when it cannot be created ("the Redis Cluster")
     * @param create the topology, not started yet, on its directory
     * @param launch starts the topology's processes and waits until they serve
     * @param retry  whether a launch that threw this may be tried again on a fresh directory
     * @throws IllegalStateException the last launch failure, after the topology it concerned was closed
     */
    static <T extends AutoCloseable> T start(String what, String prefix, Function<Path, T> create, Consumer<T> launch,
            Predicate<IllegalStateException> retry) {
        IllegalStateException failure = null;
        for (int attempt = 1; attempt <= LAUNCH_ATTEMPTS; attempt++) {
            T topology = create.apply(temporaryDirectory(what, prefix));
            TopologyCleanup.register(topology);
            try {
                launch.accept(topology);
                return topology;
            } catch (IllegalStateException e) {
                closeQuietly(topology, e);
                failure = e;
                if (!retry.test(e)) {
                    break;
                }
            } catch (RuntimeException e) {
                closeQuietly(topology, e);
                throw e;
            }
        }
        throw failure;
    }

    /** Whether a launch failed because a port was taken before a process could bind it. */
    static boolean portTaken(IllegalStateException e) {
        return e.getMessage() != null && e.getMessage().contains("address already in use");
    }

    /**
     * Ends a topology: {@code stop} stops its processes, then, even if that failed, it is forgotten by
     * {@link TopologyCleanup} and {@code dir} deleted.
     */
    static void stopAndDelete(AutoCloseable topology, Path dir, Runnable stop) {
        try {
            stop.run();
        } finally {
            TopologyCleanup.forget(topology);
            ServerProcesses.deleteRecursively(dir);
        }
    }

    /** {@code dir/name}, created if it does not exist. */
    static Path subdirectory(Path dir, String name) {
        Path sub = dir.resolve(name);
        try {
            return Files.createDirectories(sub);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + sub, e);
        }
    }

    private static Path temporaryDirectory(String what, String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory for " + what, e);
        }
    }

    private static void closeQuietly(AutoCloseable topology, RuntimeException failure) {
        try {
            topology.close();
        } catch (Exception e) {
            failure.addSuppressed(e);
        }
    }
}

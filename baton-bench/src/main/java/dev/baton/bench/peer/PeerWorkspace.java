package dev.baton.bench.peer;

import dev.baton.peer.transport.PeerAddress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The loopback addresses and data directories of one TCP quorum scenario run: N free ports on 127.0.0.1 and a data
 * directory per node under one temporary directory, deleted after a completed run and kept (with a note on stderr)
 * after a failure.
 */
final class PeerWorkspace implements AutoCloseable {

    private final String scenario;
    private final Path root;
    private final List<PeerAddress> addresses = new ArrayList<>();
    private boolean completed;

    PeerWorkspace(String scenario, int nodes) throws IOException {
        this.scenario = scenario;
        this.root = Files.createTempDirectory("baton-" + scenario + "-");
        for (int i = 0; i < nodes; i++) {
            addresses.add(PeerAddress.of("127.0.0.1", freePort()));
            Files.createDirectories(dataDir(i));
        }
    }

    List<PeerAddress> addresses() {
        return addresses;
    }

    PeerAddress address(int node) {
        return addresses.get(node);
    }

    /** Node {@code node}'s data directory: the same one after every restart. */
    Path dataDir(int node) {
        return root.resolve("node-" + node);
    }

    Path root() {
        return root;
    }

    /** Marks the run as completed: {@link #close()} then deletes the directory. */
    void completed() {
        completed = true;
    }

    @Override
    public void close() {
        if (!completed) {
            System.err.println(scenario + ": data directories kept in " + root);
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException | UncheckedIOException e) {
            System.err.println(scenario + ": could not delete " + root + ": " + e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}

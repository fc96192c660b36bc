package dev.baton.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * Free TCP ports on 127.0.0.1 for the nodes a test starts itself. Asking for several ports at once holds each probe
 * open until all are chosen, so they are distinct: probing one at a time and closing each may be given the same
 * port twice.
 */
public final class LoopbackPorts {

    private LoopbackPorts() {
    }

    /** {@code count} distinct ports on 127.0.0.1 that were free a moment ago. */
    public static List<Integer> free(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, got " + count);
        }
        List<ServerSocket> held = new ArrayList<>(count);
        try {
            for (int i = 0; i < count; i++) {
                held.add(new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1")));
            }
            return held.stream().map(ServerSocket::getLocalPort).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find " + count + " free loopback ports", e);
        } finally {
            for (ServerSocket socket : held) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // only a probe
                }
            }
        }
    }
}

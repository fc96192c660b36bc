package dev.baton.server.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Free TCP ports on 127.0.0.1 for the nodes a run starts. */
final class LoopbackPorts {

    static final String HOST = "127.0.0.1";

    private LoopbackPorts() {
    }

    /** {@code count} distinct ports that were free a moment ago (held open together, then closed). */
    static List<Integer> free(int count) {
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                held.add(new ServerSocket(0, 1, InetAddress.getByName(HOST)));
            }
            return held.stream().map(ServerSocket::getLocalPort).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find free loopback ports", e);
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

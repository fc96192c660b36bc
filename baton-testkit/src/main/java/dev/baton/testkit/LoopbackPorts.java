package dev.baton.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free TCP ports on 127.0.0.1 for the servers and nodes a test starts itself, each bound by another process a moment
 * later. Two things can take such a port in that moment, and both are kept out:
 * <ul>
 *   <li><b>Outgoing connections.</b> Every {@code connect()} on the machine takes its local port from the kernel's
 *       ephemeral range ({@code /proc/sys/net/ipv4/ip_local_port_range}, 32768-60999 on Linux), and so does a bind
 *       to port 0. A port drawn there can become some client's local port before the server binds it, which then
 *       fails with "address in use": a cluster's nodes retrying their peers open dozens of connections a second. So
 *       ports are drawn at random <em>below</em> that range (from 10000 up), where only an explicit bind lands.</li>
 *   <li><b>This call's other ports.</b> Asking for several ports at once holds each probe open until all are chosen,
 *       so they are distinct.</li>
 * </ul>
 * Where the range cannot be read, or leaves too little room below it, ports come from the kernel (port 0) as before.
 */
public final class LoopbackPorts {

    private static final int LOWEST = 10_000;
    /** Fewer ports than this below the ephemeral range, and the range is not used. */
    private static final int ROOM = 2_000;
    private static final int ATTEMPTS = 500;
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

    private LoopbackPorts() {
    }

    /** {@code count} distinct ports on 127.0.0.1 that were free a moment ago. */
    public static List<Integer> free(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, got " + count);
        }
        int below = ephemeralLow();
        List<ServerSocket> held = new ArrayList<>(count);
        try {
            InetAddress loopback = InetAddress.getByName("127.0.0.1");
            for (int attempt = 0; held.size() < count; attempt++) {
                if (below - LOWEST < ROOM || attempt >= ATTEMPTS) {
                    held.add(new ServerSocket(0, 1, loopback));
                    continue;
                }
                ServerSocket probe = new ServerSocket();
                try {
                    // Without SO_REUSEADDR the probe also fails where an earlier server's connections linger in
                    // TIME_WAIT, which a server that does not set it could not bind either.
                    probe.setReuseAddress(false);
                    probe.bind(new InetSocketAddress(loopback, ThreadLocalRandom.current().nextInt(LOWEST, below)), 1);
                    held.add(probe);
                } catch (IOException taken) {
                    probe.close();
                }
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

    /** The first port of the kernel's ephemeral range, or {@link #LOWEST} when it cannot be read. */
    static int ephemeralLow() {
        try {
            String[] range = Files.readString(EPHEMERAL_RANGE).trim().split("\\s+");
            return Integer.parseInt(range[0]);
        } catch (IOException | RuntimeException unreadable) {
            return LOWEST;
        }
    }
}

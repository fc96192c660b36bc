package dev.baton.bench.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counts the commands Redis executes while a workload runs, with {@code MONITOR} on a raw socket, split into
 * commands that arrived from clients (each one a round trip, or part of a pipeline) and commands that scripts ran
 * inside the server ({@code [0 lua]} lines). {@code INFO commandstats} counts both together; this tells them apart.
 */
public final class CommandMonitor {

    /** Commands seen, by upper-case name. */
    public record Counts(Map<String, Integer> fromClients, Map<String, Integer> fromScripts) {

        public int clientTotal() {
            return fromClients.values().stream().mapToInt(Integer::intValue).sum();
        }

        public int scriptTotal() {
            return fromScripts.values().stream().mapToInt(Integer::intValue).sum();
        }
    }

    private static final int READ_TIMEOUT_MILLIS = 10_000;

    private CommandMonitor() {
    }

    /**
     * Runs {@code workload} with a monitor attached and returns what Redis executed meanwhile. Ends at a marker
     * {@code ECHO} sent through {@code admin} after the workload; the marker itself is not counted.
     */
    public static Counts during(String host, int port, RedisAdmin admin, Runnable workload) throws IOException {
        String marker = "baton-bench-monitor-end-" + System.nanoTime();
        try (Socket socket = new Socket(host, port)) {
            socket.setSoTimeout(READ_TIMEOUT_MILLIS);
            OutputStream out = socket.getOutputStream();
            BufferedReader in = new BufferedReader(
                    new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
            out.write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String ok = in.readLine();
            if (!"+OK".equals(ok)) {
                throw new IOException("MONITOR refused: " + ok);
            }
            workload.run();
            admin.commands().echo(marker);
            Map<String, Integer> clients = new TreeMap<>();
            Map<String, Integer> scripts = new TreeMap<>();
            String line;
            while ((line = in.readLine()) != null) {
                if (line.contains(marker)) {
                    return new Counts(clients, scripts);
                }
                // +1700000000.123456 [0 127.0.0.1:5555] "EVALSHA" "..."   or   [0 lua] "HSET" ...
                int close = line.indexOf(']');
                int open = line.indexOf('[');
                if (open < 0 || close < 0) {
                    continue;
                }
                boolean fromScript = line.substring(open, close).endsWith(" lua");
                int quote = line.indexOf('"', close);
                int end = quote < 0 ? -1 : line.indexOf('"', quote + 1);
                if (end < 0) {
                    continue;
                }
                String command = line.substring(quote + 1, end).toUpperCase(java.util.Locale.ROOT);
                (fromScript ? scripts : clients).merge(command, 1, Integer::sum);
            }
            throw new IOException("MONITOR stream ended before the marker");
        }
    }
}

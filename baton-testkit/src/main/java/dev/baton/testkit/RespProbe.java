package dev.baton.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * Asks a Redis server a question over a plain socket (RESP), so the launcher needs no client library. {@link #ping}
 * tells whether something answers; {@link #serverPid} tells whether it is the process we started, which matters when
 * another server already holds the port and answers for ours while ours fails to bind; {@link #call} sends any
 * command whose reply is a single value ({@code BGSAVE}, {@code INFO}, {@code CONFIG SET}).
 */
final class RespProbe {

    private static final byte[] PING = "*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] INFO_SERVER =
            "*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int MAX_LINE = 512;
    private static final int MAX_BULK = 1 << 16;

    private RespProbe() {}

    /**
     * True if the server at {@code host:port} answered {@code +PONG} within {@code timeout} (for connect and for
     * the reply each). A {@code -LOADING} reply, a refused connection or a timeout all count as false.
     */
    static boolean ping(String host, int port, Duration timeout) {
        try (Socket socket = connect(host, port, timeout)) {
            send(socket, PING);
            return "+PONG".equals(readLine(socket.getInputStream()));
        } catch (IOException e) {
            return false;
        }
    }

    /** The {@code process_id} the server at {@code host:port} reports in {@code INFO server}, if it answers. */
    static OptionalLong serverPid(String host, int port, Duration timeout) {
        try (Socket socket = connect(host, port, timeout)) {
            send(socket, INFO_SERVER);
            InputStream in = socket.getInputStream();
            String header = readLine(in);
            if (!header.startsWith("$")) {
                return OptionalLong.empty();
            }
            int length = Integer.parseInt(header.substring(1));
            if (length < 0 || length > MAX_BULK) {
                return OptionalLong.empty();
            }
            String info = new String(in.readNBytes(length), StandardCharsets.UTF_8);
            for (String line : info.split("\r\n")) {
                if (line.startsWith("process_id:")) {
                    return OptionalLong.of(Long.parseLong(line.substring("process_id:".length()).trim()));
                }
            }
            return OptionalLong.empty();
        } catch (IOException | NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * Sends one command and returns its reply as text: a status ({@code +OK} without the {@code +}), an integer, or a
     * bulk string ({@code null} for a null bulk). An error reply throws {@link IllegalStateException} with the
     * server's message; arrays are not supported (no caller needs one).
     */
    static String call(String host, int port, Duration timeout, String... args) throws IOException {
        try (Socket socket = connect(host, port, timeout)) {
            send(socket, encode(args));
            InputStream in = socket.getInputStream();
            String line = readLine(in);
            if (line.isEmpty()) {
                throw new IOException("no reply to " + args[0]);
            }
            switch (line.charAt(0)) {
                case '+', ':':
                    return line.substring(1);
                case '-':
                    throw new IllegalStateException(args[0] + " failed: " + line.substring(1));
                case '$':
                    int length = Integer.parseInt(line.substring(1));
                    if (length < 0) {
                        return null;
                    }
                    if (length > MAX_BULK) {
                        throw new IOException(args[0] + " reply of " + length + " bytes is too long");
                    }
                    byte[] bulk = in.readNBytes(length);
                    if (bulk.length < length) {
                        throw new IOException("truncated reply to " + args[0]);
                    }
                    return new String(bulk, StandardCharsets.UTF_8);
                default:
                    throw new IOException("unsupported reply to " + args[0] + ": " + line);
            }
        }
    }

    private static byte[] encode(String... args) {
        StringBuilder request = new StringBuilder("*").append(args.length).append("\r\n");
        for (String arg : args) {
            request.append('$').append(arg.getBytes(StandardCharsets.UTF_8).length).append("\r\n")
                    .append(arg).append("\r\n");
        }
        return request.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static Socket connect(String host, int port, Duration timeout) throws IOException {
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(host, port), millis);
            socket.setSoTimeout(millis);
            return socket;
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    private static void send(Socket socket, byte[] request) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(request);
        out.flush();
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1 && c != '\r' && line.size() < MAX_LINE) {
            line.write(c);
        }
        if (c == '\r') {
            in.read(); // the '\n' that ends every RESP line
        }
        return line.toString(StandardCharsets.UTF_8);
    }
}

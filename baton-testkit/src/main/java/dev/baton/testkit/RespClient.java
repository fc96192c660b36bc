package dev.baton.testkit;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Sends one command to a Redis server (or Sentinel) over a fresh socket and returns its whole reply, arrays included,
 * which the topologies need for {@code SENTINEL get-master-addr-by-name} and {@code CLUSTER GETKEYSINSLOT}
 * ({@link RespProbe} reads single values only). Replies come back as Java values: a status or bulk string as
 * {@link String}, an integer as {@link Long}, an array as a {@link List} of these, a null bulk or null array as
 * {@code null}. An error reply throws {@link RedisErrorReply}.
 */
final class RespClient {

    private static final int MAX_LINE = 4096;
    private static final int MAX_BULK = 1 << 20;
    private static final int MAX_ARRAY = 1 << 16;
    private static final int MAX_DEPTH = 8;

    private RespClient() {}

    /** An error reply ({@code -ERR ...}, {@code -MOVED ...}): the server's message without the {@code -}. */
    static final class RedisErrorReply extends IllegalStateException {

        private static final long serialVersionUID = 1L;

        RedisErrorReply(String command, String message) {
            super(command + " failed: " + message);
        }
    }

    /** Runs {@code args} on {@code address}; {@code timeout} bounds the connect and the wait for the reply. */
    static Object call(InetSocketAddress address, Duration timeout, String... args) throws IOException {
        if (args.length == 0) {
            throw new IllegalArgumentException("a command needs at least its name");
        }
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        try (Socket socket = new Socket()) {
            socket.connect(address, millis);
            socket.setSoTimeout(millis);
            OutputStream out = socket.getOutputStream();
            out.write(encode(args));
            out.flush();
            return read(new BufferedInputStream(socket.getInputStream()), args[0], 0);
        }
    }

    private static Object read(InputStream in, String command, int depth) throws IOException {
        String line = readLine(in);
        if (line.isEmpty()) {
            throw new IOException("no reply to " + command);
        }
        String rest = line.substring(1);
        switch (line.charAt(0)) {
            case '+':
                return rest;
            case ':':
                return parseLong(rest, command);
            case '-':
                throw new RedisErrorReply(command, rest);
            case '$':
                return readBulk(in, command, (int) parseLong(rest, command));
            case '*':
                return readArray(in, command, (int) parseLong(rest, command), depth);
            default:
                throw new IOException("unsupported reply to " + command + ": " + line);
        }
    }

    private static String readBulk(InputStream in, String command, int length) throws IOException {
        if (length < 0) {
            return null;
        }
        if (length > MAX_BULK) {
            throw new IOException(command + " reply of " + length + " bytes is too long");
        }
        byte[] bulk = in.readNBytes(length);
        if (bulk.length < length || in.read() != '\r' || in.read() != '\n') {
            throw new IOException("truncated reply to " + command);
        }
        return new String(bulk, StandardCharsets.UTF_8);
    }

    private static List<Object> readArray(InputStream in, String command, int size, int depth) throws IOException {
        if (size < 0) {
            return null;
        }
        if (size > MAX_ARRAY || depth >= MAX_DEPTH) {
            throw new IOException(command + " reply is too large or too deeply nested");
        }
        List<Object> items = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            items.add(read(in, command, depth + 1));
        }
        return items;
    }

    private static long parseLong(String text, String command) throws IOException {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IOException("malformed reply to " + command + ": " + text, e);
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

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1 && c != '\r') {
            if (line.size() >= MAX_LINE) {
                throw new IOException("reply line longer than " + MAX_LINE + " bytes");
            }
            line.write(c);
        }
        if (c == '\r') {
            in.read(); // the '\n' that ends every RESP line
        }
        return line.toString(StandardCharsets.UTF_8);
    }
}

package dev.baton.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.io.UncheckedIOException;

/**
 * Writes one JSON object per line and flushes it at once, so a process reading the node's stdout (a supervisor, a
 * test, {@code baton demo}) sees each event when it happens, not when a buffer fills. Thread-safe: the election's
 * event thread and the fenced-write thread share one instance, and lines never interleave.
 */
final class JsonLines {

    private final ObjectMapper mapper;
    private final PrintStream out;
    private final boolean stampMono;

    JsonLines(ObjectMapper mapper, PrintStream out) {
        this(mapper, out, false);
    }

    /**
     * @param stampMono {@code --chaos-hooks}: a line without {@code mono} gets one, the real {@link System#nanoTime()}
     *                  as it is written (lines whose event happened earlier, e.g. election events, bring their own)
     */
    JsonLines(ObjectMapper mapper, PrintStream out, boolean stampMono) {
        this.mapper = mapper;
        this.out = out;
        this.stampMono = stampMono;
    }

    /** Writes {@code line} and a newline, then flushes. */
    synchronized void write(ObjectNode line) {
        if (stampMono && !line.has("mono")) {
            EventJson.stamp(line, "mono", System.nanoTime());
        }
        String text;
        try {
            text = mapper.writeValueAsString(line);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
        out.print(text);
        out.print('\n');
        out.flush();
    }
}

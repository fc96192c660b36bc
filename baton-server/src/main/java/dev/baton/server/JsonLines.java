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

    JsonLines(ObjectMapper mapper, PrintStream out) {
        this.mapper = mapper;
        this.out = out;
    }

    /** Writes {@code line} and a newline, then flushes. */
    synchronized void write(ObjectNode line) {
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

package dev.baton.bench.report;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * Passes a scenario's markdown through to where it is printed and remembers the latest heading ({@code ## ...} or
 * {@code ### ...}), so that a latency table rendered next can be filed under the section it appears in. Not
 * thread-safe beyond what {@link java.io.PrintStream} guarantees its stream.
 */
final class SectionTracker extends OutputStream implements Supplier<String> {

    private final OutputStream out;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private volatile String section = "";

    SectionTracker(OutputStream out) {
        this.out = out;
    }

    /** The text of the latest heading, without its {@code #}s; empty before the first. */
    @Override
    public String get() {
        return section;
    }

    @Override
    public void write(int b) throws java.io.IOException {
        out.write(b);
        if (b == '\n') {
            endLine();
        } else if (line.size() < 1024) {
            line.write(b);
        }
    }

    private void endLine() {
        String text = line.toString(StandardCharsets.UTF_8).strip();
        line.reset();
        if (text.startsWith("##")) {
            section = text.replaceFirst("^#+\\s*", "");
        }
    }

    @Override
    public void flush() throws java.io.IOException {
        out.flush();
    }
}

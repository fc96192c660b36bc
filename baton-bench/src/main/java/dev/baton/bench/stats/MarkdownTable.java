package dev.baton.bench.stats;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** A GitHub-flavoured markdown table, built row by row and rendered with aligned columns. */
public final class MarkdownTable {

    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();

    public MarkdownTable(String... header) {
        this.header = List.of(header);
    }

    /** Adds a row; it must have as many cells as the header. */
    public MarkdownTable row(String... cells) {
        if (cells.length != header.size()) {
            throw new IllegalArgumentException("expected " + header.size() + " cells, got " + cells.length);
        }
        rows.add(List.of(cells));
        return this;
    }

    /** Milliseconds with a precision that suits the magnitude, e.g. {@code 0.412}, {@code 7.41}, {@code 265}. */
    public static String millis(double nanos) {
        double ms = nanos / 1_000_000.0;
        if (ms < 10) {
            return String.format(Locale.ROOT, ms < 1 ? "%.3f" : "%.2f", ms);
        }
        return String.format(Locale.ROOT, ms < 100 ? "%.1f" : "%.0f", ms);
    }

    /** A ratio such as {@code 3.4×}. */
    public static String ratio(double value) {
        return String.format(Locale.ROOT, value < 10 ? "%.2f×" : "%.0f×", value);
    }

    public String render() {
        int[] widths = new int[header.size()];
        for (int c = 0; c < widths.length; c++) {
            widths[c] = Math.max(3, header.get(c).length());
            for (List<String> row : rows) {
                widths[c] = Math.max(widths[c], row.get(c).length());
            }
        }
        StringBuilder out = new StringBuilder();
        line(out, header, widths);
        out.append('|');
        for (int width : widths) {
            out.append(' ').append("-".repeat(width)).append(" |");
        }
        out.append('\n');
        for (List<String> row : rows) {
            line(out, row, widths);
        }
        return out.toString();
    }

    private static void line(StringBuilder out, List<String> cells, int[] widths) {
        out.append('|');
        for (int c = 0; c < widths.length; c++) {
            String cell = cells.get(c);
            out.append(' ').append(cell).append(" ".repeat(widths[c] - cell.length())).append(" |");
        }
        out.append('\n');
    }
}

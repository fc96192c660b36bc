package dev.baton.server.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A table for the chaos report, built row by row and rendered either as a GitHub-flavoured Markdown table or as
 * aligned plain text for a terminal. In plain text, columns that hold only numbers are right-aligned.
 */
final class ReportTable {

    private static final Pattern NUMBER = Pattern.compile("-?[0-9][0-9.,]*");

    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();

    ReportTable(String... header) {
        this.header = List.of(header);
    }

    /** Adds a row; it must have as many cells as the header. */
    ReportTable row(String... cells) {
        if (cells.length != header.size()) {
            throw new IllegalArgumentException("expected " + header.size() + " cells, got " + cells.length);
        }
        rows.add(List.of(cells));
        return this;
    }

    /** Milliseconds with a precision that suits the magnitude, e.g. {@code 0.412}, {@code 7.41}, {@code 265}. */
    static String millis(double nanos) {
        double ms = nanos / 1_000_000.0;
        if (ms < 10) {
            return String.format(Locale.ROOT, ms < 1 ? "%.3f" : "%.2f", ms);
        }
        return String.format(Locale.ROOT, ms < 100 ? "%.1f" : "%.0f", ms);
    }

    /** The table in Markdown, one line per row, ending with a newline. */
    String markdown() {
        int[] widths = widths(3);
        StringBuilder out = new StringBuilder();
        markdownLine(out, header, widths);
        out.append('|');
        for (int width : widths) {
            out.append(' ').append("-".repeat(width)).append(" |");
        }
        out.append('\n');
        for (List<String> row : rows) {
            markdownLine(out, row, widths);
        }
        return out.toString();
    }

    /** The table as aligned plain text: a header, a rule, the rows; ending with a newline. */
    String text() {
        int[] widths = widths(1);
        boolean[] numeric = numericColumns();
        StringBuilder out = new StringBuilder();
        textLine(out, header, widths, numeric);
        int total = 0;
        for (int width : widths) {
            total += width;
        }
        out.append("-".repeat(total + 2 * (widths.length - 1))).append('\n');
        for (List<String> row : rows) {
            textLine(out, row, widths, numeric);
        }
        return out.toString();
    }

    private int[] widths(int minimum) {
        int[] widths = new int[header.size()];
        for (int c = 0; c < widths.length; c++) {
            widths[c] = Math.max(minimum, header.get(c).length());
            for (List<String> row : rows) {
                widths[c] = Math.max(widths[c], row.get(c).length());
            }
        }
        return widths;
    }

    private static void markdownLine(StringBuilder out, List<String> cells, int[] widths) {
        out.append('|');
        for (int c = 0; c < widths.length; c++) {
            String cell = cells.get(c);
            out.append(' ').append(cell).append(" ".repeat(widths[c] - cell.length())).append(" |");
        }
        out.append('\n');
    }

    private boolean[] numericColumns() {
        boolean[] numeric = new boolean[header.size()];
        for (int c = 0; c < numeric.length; c++) {
            int column = c;
            numeric[c] = !rows.isEmpty() && rows.stream().map(row -> row.get(column))
                    .allMatch(cell -> cell.isEmpty() || NUMBER.matcher(cell).matches());
        }
        return numeric;
    }

    private static void textLine(StringBuilder out, List<String> cells, int[] widths, boolean[] numeric) {
        StringBuilder line = new StringBuilder();
        for (int c = 0; c < widths.length; c++) {
            String cell = cells.get(c);
            String pad = " ".repeat(widths[c] - cell.length());
            line.append(c > 0 ? "  " : "");
            if (numeric[c]) {
                line.append(pad).append(cell);
            } else {
                line.append(cell).append(pad);
            }
        }
        out.append(line.toString().stripTrailing()).append('\n');
    }
}

package dev.baton.bench.soak;

/** Reads values out of the Prometheus text format the node's {@code /metrics} answers. */
final class PrometheusText {

    private PrometheusText() {
    }

    /**
     * The sum of every sample of {@code metric} whose labels contain {@code labelFilter} (empty: all samples), e.g.
     * {@code jvm_memory_used_bytes} with {@code area="heap"} adds up the heap pools; 0 if there is none.
     */
    static double sum(String text, String metric, String labelFilter) {
        double sum = 0;
        for (String line : text.split("\n")) {
            if (line.isEmpty() || line.charAt(0) == '#' || !line.startsWith(metric)) {
                continue;
            }
            int rest = metric.length();
            if (rest < line.length() && line.charAt(rest) != '{' && line.charAt(rest) != ' ') {
                continue; // a longer metric name with this prefix
            }
            int close = line.lastIndexOf('}');
            String labels = close > 0 ? line.substring(rest, close + 1) : "";
            if (!labelFilter.isEmpty() && !labels.contains(labelFilter)) {
                continue;
            }
            String[] tail = line.substring(close > 0 ? close + 1 : rest).trim().split("\\s+");
            try {
                sum += Double.parseDouble(tail[0]);
            } catch (NumberFormatException e) {
                // NaN-like or malformed sample: skip it
            }
        }
        return sum;
    }
}

package dev.baton.bench.backend;

/** Counter sums out of the Prometheus text format a server answers on {@code /metrics}. */
final class PrometheusSamples {

    private PrometheusSamples() {
    }

    /**
     * The sum of every sample of {@code metric}, whatever its labels; 0 if there is none. Comment lines and longer
     * names that start with {@code metric} are skipped; a value in exponent form ({@code 1.2e+06}) is read as the
     * whole number it stands for.
     */
    static long sum(String text, String metric) {
        long sum = 0;
        for (String line : text.split("\n")) {
            if (line.isEmpty() || line.charAt(0) == '#' || !line.startsWith(metric)) {
                continue;
            }
            int rest = metric.length();
            if (rest >= line.length() || (line.charAt(rest) != '{' && line.charAt(rest) != ' ')) {
                continue;
            }
            int close = line.lastIndexOf('}');
            String[] tail = line.substring(close > 0 ? close + 1 : rest).trim().split("\\s+");
            sum += Math.round(Double.parseDouble(tail[0]));
        }
        return sum;
    }
}

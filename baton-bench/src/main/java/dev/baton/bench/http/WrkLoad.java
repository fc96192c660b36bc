package dev.baton.bench.http;

import dev.baton.bench.stats.Summary;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code wrk} (Debian's wrk 4, which has no rate option) driven through a Lua script whose {@code done()} prints one
 * machine-readable line. Two modes: as fast as {@code connections} connections go (throughput), or paced by a
 * per-connection {@code delay()} so that {@code connections / delay} is the target rate. Paced wrk is still closed
 * loop (a slow answer delays that connection's next request), which is why {@link OpenLoopLoad} is the measurement
 * the goal is judged on and wrk the cross-check.
 */
final class WrkLoad {

    /** What wrk reported; latencies are wrk's (microsecond resolution), for requests that completed. */
    record Result(long requests, long errors, long non2xx, double seconds, Summary latency) {
        double perSecond() {
            return requests / seconds;
        }
    }

    private static final Pattern LINE = Pattern.compile("baton-wrk requests=(\\d+) duration_us=(\\d+) errors=(\\d+)"
            + " status=(\\d+) p50_us=(\\d+) p90_us=(\\d+) p99_us=(\\d+) max_us=(\\d+) mean_us=([0-9.]+)");

    private WrkLoad() {
    }

    static Optional<Path> executable() {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .filter(dir -> !dir.isBlank())
                .map(dir -> Path.of(dir, "wrk"))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /** {@code wrk --version}'s first line, e.g. {@code wrk debian/4.1.0-3+b2 [epoll]}. */
    static String version(Path wrk) {
        try {
            Process process = new ProcessBuilder(wrk.toString(), "--version").redirectErrorStream(true).start();
            String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            process.waitFor(5, TimeUnit.SECONDS);
            String first = text.lines().findFirst().orElse("wrk");
            int copyright = first.indexOf(" Copyright");
            return copyright > 0 ? first.substring(0, copyright) : first;
        } catch (IOException e) {
            return "wrk";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "wrk";
        }
    }

    /**
     * Runs {@code wrk -t threads -c connections -d seconds} against {@code uri}.
     *
     * @param perConnectionRate requests per second per connection, or 0 for as fast as possible
     */
    static Result run(Path wrk, URI uri, int threads, int connections, Duration duration, double perConnectionRate,
            Path workDir) throws IOException, InterruptedException {
        StringBuilder script = new StringBuilder();
        if (perConnectionRate > 0) {
            script.append(String.format(Locale.ROOT, "function delay()%n  return %.3f%nend%n",
                    1000.0 / perConnectionRate));
        }
        script.append("""
                done = function(summary, latency, requests)
                  local e = summary.errors
                  io.write(string.format(
                    "baton-wrk requests=%d duration_us=%d errors=%d status=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d mean_us=%.1f\\n",
                    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
                    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
                end
                """);
        Path file = Files.createTempFile(workDir, "wrk-", ".lua");
        Files.writeString(file, script.toString(), StandardCharsets.UTF_8);
        List<String> command = new ArrayList<>(List.of(wrk.toString(), "-t" + threads, "-c" + connections,
                "-d" + duration.toSeconds() + "s", "--timeout", "5s", "-s", file.toString(), uri.toString()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(duration.toSeconds() + 30, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException("wrk failed: " + String.join(" ", command) + "\n" + output);
        }
        Matcher m = LINE.matcher(output);
        if (!m.find()) {
            throw new IllegalStateException("no result line in wrk's output:\n" + output);
        }
        long requests = Long.parseLong(m.group(1));
        double seconds = Long.parseLong(m.group(2)) / 1e6;
        Summary latency = new Summary((int) requests, micros(m.group(5)), micros(m.group(6)), micros(m.group(7)),
                micros(m.group(8)), Double.parseDouble(m.group(9)) * 1000);
        return new Result(requests, Long.parseLong(m.group(3)), Long.parseLong(m.group(4)), seconds, latency);
    }

    private static long micros(String value) {
        return TimeUnit.MICROSECONDS.toNanos(Long.parseLong(value));
    }
}

package dev.baton.bench.support;

import dev.baton.bench.stats.MarkdownTable;
import dev.baton.bench.stats.Summary;
import java.lang.management.ManagementFactory;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/** The context printed above each scenario's tables: date, JVM, cores, Redis version and round-trip time. */
public final class Environment {

    private Environment() {
    }

    /** One markdown line describing the JVM and machine. */
    public static String machine() {
        Runtime runtime = Runtime.getRuntime();
        return "JDK " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + "), "
                + runtime.availableProcessors() + " cores, " + System.getProperty("os.name") + " "
                + System.getProperty("os.version") + ", load average "
                + String.format(java.util.Locale.ROOT, "%.2f",
                        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage())
                + ", " + ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ISO_LOCAL_DATE_TIME)
                .substring(0, 16) + " UTC";
    }

    /**
     * The client-side round trip of one {@code PING} from a Lettuce sync connection (caller thread -> I/O thread ->
     * Redis -> I/O thread -> caller), the unit every Redis-backed candidate pays per store call.
     */
    public static Summary pingRoundTrip(RedisAdmin admin, int count) {
        for (int i = 0; i < 200; i++) {
            admin.commands().ping();
        }
        long[] samples = new long[count];
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            admin.commands().ping();
            samples[i] = System.nanoTime() - start;
        }
        return Summary.of(samples);
    }

    /** A markdown paragraph with the Redis version and the PING round trip. */
    public static String redis(RedisAdmin admin, String uri) {
        Summary ping = pingRoundTrip(admin, 2_000);
        return "Private redis-server " + admin.version() + " on " + uri + "; Lettuce sync PING round trip p50 "
                + MarkdownTable.millis(ping.p50()) + " ms, p99 " + MarkdownTable.millis(ping.p99()) + " ms.";
    }
}

package dev.baton.bench.work;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where the CPU of a benchmark step goes: this JVM's threads grouped by what they do (by thread name: the benchmark
 * names the leader's and the follower's scheduler and listener threads), the rest of the JVM (GC, JIT: the process's
 * CPU minus its threads'), and the private {@code redis-server}. A snapshot is taken before and after a window;
 * {@link #since} gives the difference per part.
 */
final class CpuAccount {

    /** The parts, in table order; a thread that matches none counts as "other threads". */
    static final String[] PARTS = {"leader scheduler", "follower scheduler", "follower listener",
        "JDK WebSocket client (leader)", "Lettuce I/O (both)", "simulated workers", "other threads",
        "JVM (GC, JIT)", "redis-server"};

    private static final long CLOCK_TICK_NANOS = 10_000_000L; // Linux USER_HZ = 100

    private final long redisPid;

    CpuAccount(long redisPid) {
        this.redisPid = redisPid;
    }

    /** CPU nanoseconds per part so far. */
    Map<String, Long> snapshot() {
        Map<String, Long> parts = new LinkedHashMap<>();
        for (String part : PARTS) {
            parts.put(part, 0L);
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long threadTotal = 0;
        for (long id : threads.getAllThreadIds()) {
            var info = threads.getThreadInfo(id);
            long cpu = threads.getThreadCpuTime(id);
            if (info == null || cpu < 0) {
                continue;
            }
            threadTotal += cpu;
            parts.merge(part(info.getThreadName()), cpu, Long::sum);
        }
        long process = 0;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            process = os.getProcessCpuTime();
        }
        parts.put("JVM (GC, JIT)", Math.max(0, process - threadTotal));
        parts.put("redis-server", redisCpu());
        return parts;
    }

    /** {@code after - before}, per part. */
    static Map<String, Long> since(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> delta = new LinkedHashMap<>();
        after.forEach((part, nanos) -> delta.put(part, Math.max(0, nanos - before.getOrDefault(part, 0L))));
        return delta;
    }

    private static String part(String thread) {
        if (thread.startsWith("baton-work-leader")) {
            return "leader scheduler";
        }
        if (thread.startsWith("baton-work-follower")) {
            return "follower scheduler";
        }
        if (thread.startsWith("baton-listeners-follower")) {
            return "follower listener";
        }
        if (thread.startsWith("HttpClient")) {
            return "JDK WebSocket client (leader)";
        }
        if (thread.startsWith("lettuce")) {
            return "Lettuce I/O (both)";
        }
        if (thread.startsWith("simulated-worker") || thread.startsWith("WebSocket")) {
            return "simulated workers";
        }
        return "other threads";
    }

    /** utime + stime of the Redis process, from {@code /proc}; 0 where there is none. */
    private long redisCpu() {
        try {
            String stat = Files.readString(Path.of("/proc/" + redisPid + "/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * CLOCK_TICK_NANOS;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}

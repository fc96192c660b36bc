package dev.baton.bench.scale;

import java.lang.management.ManagementFactory;
import java.time.Duration;

/**
 * What holding the groups costs while nothing changes, over one window: this JVM's CPU as a percentage of one core,
 * the store's work per second, and the footprint at the end of the window.
 */
record SteadyCost(double cpuPercent, double storePerSecond, Footprint footprint) {

    static SteadyCost measure(Duration window, StoreCounter counter) throws Exception {
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long store0 = counter.read();
        long t0 = System.nanoTime();
        Thread.sleep(window.toMillis());
        long cpu1 = os.getProcessCpuTime();
        long store1 = counter.read();
        long wall = System.nanoTime() - t0;
        return new SteadyCost(100.0 * (cpu1 - cpu0) / wall, (store1 - store0) * 1e9 / wall, Footprint.now());
    }
}

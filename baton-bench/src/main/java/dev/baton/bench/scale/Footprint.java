package dev.baton.bench.scale;

import java.lang.management.ManagementFactory;

/** This JVM's heap in use after a {@code System.gc()} and its live threads. */
record Footprint(double heapMb, int threads) {

    static Footprint now() {
        System.gc();
        long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        return new Footprint(used / (1024.0 * 1024.0), ManagementFactory.getThreadMXBean().getThreadCount());
    }
}

package dev.baton.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * The wall clock of one private store server ({@link RedisServer}, {@link PostgresServer}) started with
 * {@code withStoreClock()}: the time the server reads for {@code PX} expiry, {@code TIME}, {@code now()} and the
 * terms it issues, which a test can step and skew without touching the machine's clock. Redis and PostgreSQL expire
 * leases on this clock, so stepping it forward by more than an election's margin breaks the assumption exclusion
 * rests on (docs/architecture.md, "The assumptions"), and stepping it back tests that terms still rise.
 *
 * <p>The server runs with a small preloaded library ({@code LD_PRELOAD}) that adds this clock's offset to every
 * {@code CLOCK_REALTIME} read ({@code clock_gettime}, {@code gettimeofday}, {@code time}); its monotonic clocks are
 * left alone. A change is seen by every server process at its next clock read, and survives restarts of the server.
 * The library is compiled from source with the machine's C compiler once per JVM, so it needs Linux, a C compiler
 * and a dynamically linked server binary; the servers' {@code whyStoreClockUnavailable()} says when one is missing.
 *
 * <p>Thread-safe. The server closes its clock when it closes.
 */
public final class StoreClock {

    /** Layout of the clock file, in 64-bit fields: sequence, offset (ns), skew (ppb), anchor (real ns). */
    private static final int SEQUENCE = 0;
    private static final int OFFSET = 8;
    private static final int SKEW = 16;
    private static final int ANCHOR = 24;
    private static final int SIZE = 32;
    private static final double MIN_RATE = 0.5;
    private static final double MAX_RATE = 2.0;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final VarHandle FIELD =
            MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private final Path dir;
    private final Path file;
    private final Path library;
    /** The real wall clock, in the preloaded library's terms: CLOCK_REALTIME. */
    private final Clock real;
    private final MappedByteBuffer fields;
    private long sequence;
    private long offsetNanos;
    private long skewPpb;
    private long anchorNanos;

    private StoreClock(Path dir, Path file, Path library, Clock real, MappedByteBuffer fields) {
        this.dir = dir;
        this.file = file;
        this.library = library;
        this.real = real;
        this.fields = fields;
    }

    /**
     * A clock at real time, in a temporary directory readable by every user (PostgreSQL may run as another one).
     *
     * @throws UnavailableException if the preloaded library cannot be built here
     */
    static StoreClock create() {
        Path library = StoreClockLibrary.path();
        try {
            Path dir = Files.createTempDirectory("baton-store-clock-");
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            Path file = dir.resolve("clock");
            Files.write(file, new byte[SIZE]);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
            MappedByteBuffer fields;
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                fields = channel.map(FileChannel.MapMode.READ_WRITE, 0, SIZE);
            }
            StoreClock clock = new StoreClock(dir, file, library, Clock.systemUTC(), fields);
            clock.reset();
            return clock;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a store clock file", e);
        }
    }

    /**
     * Moves the store's clock by {@code amount}: forward if positive, back if negative. The server sees the new time
     * at its next clock read; a key with {@code PX} expires at once if the step passes its expiry.
     */
    public synchronized void step(Duration amount) {
        long now = realNanos();
        publish(Math.addExact(offsetAt(now), amount.toNanos()), skewPpb, now);
    }

    /**
     * From now on, lets the store's clock run at {@code rate} times real time (1.01: 1 % fast; 0.99: 1 % slow),
     * without a jump: the offset gathered so far is kept. {@code rate(1.0)} stops the skew.
     *
     * @throws IllegalArgumentException if {@code rate} is not between 0.5 and 2
     */
    public synchronized void rate(double rate) {
        if (!(rate >= MIN_RATE && rate <= MAX_RATE)) {
            throw new IllegalArgumentException("rate must be between " + MIN_RATE + " and " + MAX_RATE + ", was "
                    + rate);
        }
        long now = realNanos();
        publish(offsetAt(now), Math.round((rate - 1.0) * NANOS_PER_SECOND), now);
    }

    /** Puts the store's clock back on real time (no offset, rate 1), a step back or forward as needed. */
    public synchronized void reset() {
        publish(0, 0, realNanos());
    }

    /** How far the store's clock is ahead of real time now (negative: behind). */
    public synchronized Duration offset() {
        return Duration.ofNanos(offsetAt(realNanos()));
    }

    /** The rate the store's clock runs at against real time; 1.0 unless {@link #rate(double)} changed it. */
    public synchronized double currentRate() {
        return 1.0 + (double) skewPpb / NANOS_PER_SECOND;
    }

    /** What the store's clock reads now. */
    public synchronized Instant now() {
        long now = realNanos();
        return Instant.ofEpochSecond(0, Math.addExact(now, offsetAt(now)));
    }

    @Override
    public synchronized String toString() {
        return "StoreClock[offset=" + offset() + ", rate=" + currentRate() + ", file=" + file + "]";
    }

    /** Adds what makes a server process read this clock to the environment it is started with. */
    void applyTo(Map<String, String> environment) {
        String preload = environment.get("LD_PRELOAD");
        environment.put("LD_PRELOAD",
                preload == null || preload.isBlank() ? library.toString() : library + ":" + preload);
        environment.put("BATON_STORE_CLOCK_FILE", file.toString());
    }

    /** The file the preloaded library maps. */
    Path file() {
        return file;
    }

    /** Deletes the clock's file; servers still running keep their mapping of it. */
    void delete() {
        ServerProcesses.deleteRecursively(dir);
    }

    private long offsetAt(long realNow) {
        return skewPpb == 0 ? offsetNanos
                : offsetNanos + (long) ((double) (realNow - anchorNanos) * skewPpb / NANOS_PER_SECOND);
    }

    /** Writes the fields under the sequence lock the preloaded library reads them with. */
    private void publish(long offset, long skew, long anchor) {
        FIELD.setVolatile(fields, SEQUENCE, ++sequence);
        FIELD.setVolatile(fields, OFFSET, offset);
        FIELD.setVolatile(fields, SKEW, skew);
        FIELD.setVolatile(fields, ANCHOR, anchor);
        FIELD.setVolatile(fields, SEQUENCE, ++sequence);
        offsetNanos = offset;
        skewPpb = skew;
        anchorNanos = anchor;
    }

    private long realNanos() {
        Instant now = real.instant();
        return Math.addExact(Math.multiplyExact(now.getEpochSecond(), NANOS_PER_SECOND), now.getNano());
    }

    /**
     * A store clock cannot be used on this machine or with this server binary: not Linux, no C compiler, or a
     * statically linked binary that ignores {@code LD_PRELOAD}. The message says which and what to install.
     */
    public static final class UnavailableException extends IllegalStateException {

        private static final long serialVersionUID = 1L;

        UnavailableException(String message) {
            super(message);
        }

        UnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}

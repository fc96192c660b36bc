package dev.baton.peer.quorum;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.Random;

/**
 * A node's data directory in the simulation: a vote log in memory, written record by record and read back with
 * {@link FileDurableState}'s layout and reading rule ({@link VoteLog}, {@link FileDurableState#stateOf}), with what
 * the process sees (the page cache) apart from what a crash leaves (the disk). A node on it gets the group-commit
 * driver, as a node with a data directory does.
 *
 * <p>A store writes the record over the next slot and forces it; a crash keeps what was forced. The faults:
 * <ul>
 *   <li>{@link #failNextForce()}: the next force fails with an I/O error (EIO). The store throws; the record is in the
 *       cache, and what the disk keeps of it is unknown, as after a real failed fsync: at the next crash it is there
 *       whole, not at all, or torn, drawn from the disk's seed. Nothing that depended on it may have been sent.</li>
 *   <li>{@link CrashFault#TEAR_LAST_WRITE}: the crash tears the last record written though its force returned (a
 *       disk that reported a write it did not keep whole). The tear fails the record's checksum, so the loss is
 *       detected: the node recovers before it votes.</li>
 *   <li>{@link CrashFault#LOSE_LAST_WRITE}: the crash loses the last record written though its force returned, and
 *       leaves the slot as it was: the older record is intact, so the loss cannot be detected. This breaks the
 *       assumption that fsync is honest, on which the election's safety rests.</li>
 * </ul>
 * The log has {@value #SLOTS} slots, so that schedules wrap around it often. Not thread-safe beyond its monitor: the
 * simulation runs the writes as tasks of the node's scheduler.
 */
final class SimulatedDisk implements DurableState {

    /** What a crash does to the last record written. */
    enum CrashFault {
        /** Nothing: it was forced, so it is on disk. */
        NONE,
        /** It is torn: its first bytes (the header at least) are on disk, the rest of the slot is as it was. */
        TEAR_LAST_WRITE,
        /** It is not on disk at all: the slot is as it was before the write. */
        LOSE_LAST_WRITE
    }

    static final int SLOTS = 4;
    private static final int SIZE = SLOTS * VoteLog.SLOT_SIZE;
    private static final int HEADER = 16;
    private static final int TRAILER = 4;

    private final Random random;
    private byte[] disk;
    private byte[] cache;
    private boolean positioned;
    private int nextSlot;
    private long nextSequence;
    // The newest record written since the last crash: its slot, the slot's bytes on disk before, its length.
    private int lastSlot = -1;
    private byte[] lastBefore;
    private int lastLength;
    private boolean lastFailed;
    private boolean failNextForce;
    private AcceptorState acknowledged;
    private Object lineage = new Object();
    private int writes;
    private int failedForces;
    private int detectedLosses;

    /** An empty data directory; {@code seed} draws what the disk keeps of a record whose force failed. */
    SimulatedDisk(long seed) {
        this.random = new Random(seed);
    }

    @Override
    public synchronized Optional<AcceptorState> load() {
        if (cache == null) {
            return Optional.empty();
        }
        return FileDurableState.stateOf(VoteLog.scan(ByteBuffer.wrap(cache)));
    }

    @Override
    public synchronized void store(AcceptorState state) {
        byte[] payload = TextState.format(state).getBytes(StandardCharsets.UTF_8);
        ByteBuffer record = ByteBuffer.allocate(VoteLog.SLOT_SIZE);
        if (cache == null) {
            // The first store creates the log under another name, forces it and renames it: all or nothing.
            VoteLog.encode(record, 1, payload);
            cache = new byte[SIZE];
            record.get(cache, 0, VoteLog.SLOT_SIZE);
            disk = cache.clone();
            positioned = true;
            nextSlot = 1;
            nextSequence = 2;
            acknowledged = state;
            writes++;
            return;
        }
        if (!positioned) {
            // As FileDurableState opens an existing log: continue after its newest record.
            VoteLog.Scan scan = VoteLog.scan(ByteBuffer.wrap(cache));
            nextSlot = scan.last().map(r -> (r.slot() + 1) % SLOTS).orElse(0);
            nextSequence = scan.last().map(r -> r.sequence() + 1).orElse(1L);
            positioned = true;
        }
        int target = nextSlot;
        VoteLog.encode(record, nextSequence, payload);
        nextSlot = (nextSlot + 1) % SLOTS;
        nextSequence++;
        writes++;
        if (lastFailed && lastSlot != target) {
            // A record whose force failed stays as the disk left it; this one is the one a crash may tear.
            settleFailed();
        }
        lastSlot = target;
        lastBefore = Arrays.copyOfRange(disk, offset(target), offset(target) + VoteLog.SLOT_SIZE);
        lastLength = HEADER + payload.length + TRAILER;
        record.get(cache, offset(target), VoteLog.SLOT_SIZE);
        if (failNextForce) {
            failNextForce = false;
            lastFailed = true;
            failedForces++;
            throw new UncheckedIOException("cannot store the election state on a simulated disk",
                    new IOException("Input/output error (a simulated fsync failure)"));
        }
        lastFailed = false;
        System.arraycopy(cache, offset(target), disk, offset(target), VoteLog.SLOT_SIZE);
        acknowledged = state;
    }

    /** The next force fails with an I/O error, once. */
    synchronized void failNextForce() {
        failNextForce = true;
    }

    /** Forgets a force failure armed by {@link #failNextForce()} that has not happened yet. */
    synchronized void cancelForceFailure() {
        failNextForce = false;
    }

    /** The process dies: the cache is gone, the disk keeps what was forced (and some of a record that failed). */
    synchronized void crash() {
        crash(CrashFault.NONE);
    }

    /**
     * The process dies and {@code fault} strikes the last record written since the previous crash (if its force
     * returned); returns whether it struck. A force failure armed but not reached is forgotten.
     */
    synchronized boolean crash(CrashFault fault) {
        boolean struck = false;
        if (lastSlot >= 0 && lastFailed) {
            settleFailed();
        } else if (lastSlot >= 0 && fault != CrashFault.NONE) {
            int at = offset(lastSlot);
            if (fault == CrashFault.LOSE_LAST_WRITE) {
                System.arraycopy(lastBefore, 0, disk, at, VoteLog.SLOT_SIZE);
            } else {
                int kept = tornLength();
                System.arraycopy(lastBefore, kept, disk, at + kept, VoteLog.SLOT_SIZE - kept);
                // A loss the node will see: what it saved from now on starts from the older record.
                detectedLosses++;
                lineage = new Object();
                acknowledged = FileDurableState.stateOf(VoteLog.scan(ByteBuffer.wrap(disk))).orElse(null);
            }
            struck = true;
        }
        lastSlot = -1;
        failNextForce = false;
        positioned = false;
        if (disk != null) {
            cache = disk.clone();
        }
        return struck;
    }

    /**
     * How many bytes of the last record a tear leaves on disk: its header at least (so the slot no longer holds the
     * record that was there before), never all of it (so its checksum fails).
     */
    private int tornLength() {
        return HEADER + 1 + random.nextInt(lastLength - HEADER - 1);
    }

    /** What the disk keeps of the record whose force failed: all of it, none, or a torn part. */
    private void settleFailed() {
        int at = offset(lastSlot);
        switch (random.nextInt(3)) {
            case 0 -> System.arraycopy(cache, at, disk, at, VoteLog.SLOT_SIZE);
            case 1 -> {
            }
            default -> System.arraycopy(cache, at, disk, at, tornLength());
        }
        lastFailed = false;
    }

    private static int offset(int slot) {
        return slot * VoteLog.SLOT_SIZE;
    }

    /** The newest state whose store returned (what the node may have sent votes on). */
    synchronized long acknowledgedHighest() {
        return acknowledged == null ? 0 : acknowledged.highestVersion();
    }

    /** Changes each time a crash tears a record whose store had returned: a detected loss of saved state. */
    synchronized Object lineage() {
        return lineage;
    }

    synchronized int writes() {
        return writes;
    }

    synchronized int failedForces() {
        return failedForces;
    }

    synchronized int detectedLosses() {
        return detectedLosses;
    }

    @Override
    public String toString() {
        return "SimulatedDisk" + load().map(s -> "[" + s + "]").orElse("[empty]");
    }
}

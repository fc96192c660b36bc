package dev.baton.peer.quorum;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link DurableState} in a vote log, {@value #FILE_NAME}, under the node's data directory: a preallocated file of
 * {@value VoteLog#SLOT_SIZE}-byte slots, each holding at most one checksummed record of the whole state, written in
 * turn around the file.
 *
 * <p>A {@link #store} after the first is one write of one slot and one {@code fdatasync} ({@code force(false)}): the
 * file never grows, so no size or block allocation has to reach the disk with it, and nothing is renamed. The slot
 * written is never one that holds the newest record, so a crash in the middle of a write (a torn record, which fails
 * its checksum) leaves the previous record readable: {@link #load} returns the valid record with the highest sequence
 * number, which is always the last one whose {@code store} returned, or a newer one whose write finished but was not
 * yet reported. A slot is a 4 KiB block, the unit in which disks write, so even a block torn by the disk holds no
 * other record. When the writes reach the end of the file they wrap to its start, over records that are superseded;
 * that is the log's compaction, and it needs no copy.
 *
 * <p>A torn record in the slot after the newest valid one is a detected loss: {@link #load} then returns the newest
 * valid record's state marked as not recovered, so the node recovers from the others before it votes, as a node
 * without saved state does (keeping what the older record says as a floor). With an honest {@code fdatasync} the torn
 * write is one whose store never returned, and nothing was sent that depended on it; but a disk that tore a write it
 * had reported durable would otherwise bring the node back having forgotten a vote it sent.
 *
 * <p>The file is created (and preallocated with zeros) under a temporary name, synced, renamed into place and the
 * directory synced, on the first store. A file that cannot be read back is an error at start-up rather than a silent
 * fresh start: the node would otherwise vote again in an election it may already have voted in. The text file of
 * earlier versions under the same name is still read; the first store replaces it with a log. The layout is in
 * docs/quorum.md. One instance at a time may write a data directory.
 */
public final class FileDurableState implements DurableState {

    private static final Logger log = LoggerFactory.getLogger(FileDurableState.class);

    /** The vote log's name inside the data directory. */
    public static final String FILE_NAME = "quorum-state";

    private final Path directory;
    private final Path file;
    private final Path temporary;

    // Guarded by this: the open log (null until the first store, and after close), its next slot and sequence.
    private FileChannel channel;
    private int slots;
    private int nextSlot;
    private long nextSequence;
    private final ByteBuffer slot = ByteBuffer.allocateDirect(VoteLog.SLOT_SIZE);

    /** A state kept under {@code dataDirectory}, which is created if missing. */
    public FileDurableState(Path dataDirectory) {
        this.directory = dataDirectory.toAbsolutePath();
        this.file = directory.resolve(FILE_NAME);
        this.temporary = directory.resolve(FILE_NAME + ".tmp");
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the data directory " + directory, e);
        }
    }

    /** The vote log. */
    public Path file() {
        return file;
    }

    @Override
    public synchronized Optional<AcceptorState> load() {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        try {
            if (TextState.isTextFile(bytes)) {
                return Optional.of(TextState.parse(List.of(new String(bytes, StandardCharsets.UTF_8).split("\n"))));
            }
            VoteLog.Scan scan = VoteLog.scan(ByteBuffer.wrap(bytes));
            if (scan.torn()) {
                log.warn("{}: the newest record is torn (a save cut short, or not kept whole by the disk); this node"
                        + " recovers from the others before it votes again", file);
            }
            return stateOf(scan);
        } catch (RuntimeException e) {
            throw new IllegalStateException(file + " is damaged (" + e.getMessage() + "); move it away only if this"
                    + " node's votes may be forgotten: it then restarts as a node without saved state", e);
        }
    }

    /**
     * The state a scanned vote log holds: its newest valid record's, marked as not recovered if the record after it
     * is torn (a detected loss: the node must recover before it votes).
     */
    static Optional<AcceptorState> stateOf(VoteLog.Scan scan) {
        Optional<AcceptorState> newest = scan.last().map(record -> TextState.parse(record.lines()));
        if (!scan.torn()) {
            return newest;
        }
        return newest.map(s -> new AcceptorState(s.highestVersion(), s.barrier(), false, s.instance(), s.promised(),
                s.acceptedBallot(), s.acceptedCandidate(), s.lastLed()));
    }

    @Override
    public synchronized void store(AcceptorState state) {
        byte[] payload = TextState.format(state).getBytes(StandardCharsets.UTF_8);
        try {
            if (channel == null && !open()) {
                create(payload);
                return;
            }
            int target = nextSlot;
            long sequence = nextSequence;
            // Whatever happens below, the next write goes to the next slot: a failed write may have reached the disk.
            nextSlot = (nextSlot + 1) % slots;
            nextSequence++;
            VoteLog.encode(slot, sequence, payload);
            long position = (long) target * VoteLog.SLOT_SIZE;
            while (slot.hasRemaining()) {
                position += channel.write(slot, position);
            }
            channel.force(false);
        } catch (IOException e) {
            closeChannel();
            throw new UncheckedIOException("cannot store the election state in " + file, e);
        }
    }

    /** Closes the log; a later {@link #store} opens it again (and reads where to continue from the file). */
    @Override
    public synchronized void close() {
        closeChannel();
    }

    /** Opens an existing log to append to; false if there is none yet (or only a text file of earlier versions). */
    private boolean open() throws IOException {
        FileChannel opened;
        try {
            opened = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (NoSuchFileException e) {
            return false;
        }
        try {
            long size = opened.size();
            if (size > Integer.MAX_VALUE) {
                throw new IOException(file + " is too large for a vote log (" + size + " bytes)");
            }
            ByteBuffer bytes = ByteBuffer.allocate((int) size);
            boolean more = true;
            while (bytes.hasRemaining() && more) {
                more = opened.read(bytes, bytes.position()) >= 0;
            }
            bytes.flip();
            if (TextState.isTextFile(Arrays.copyOf(bytes.array(), Math.min(bytes.limit(), 64)))) {
                opened.close();
                return false;
            }
            VoteLog.Scan scan = VoteLog.scan(bytes);
            slots = scan.slots();
            nextSlot = scan.last().map(r -> (r.slot() + 1) % slots).orElse(0);
            nextSequence = scan.last().map(r -> r.sequence() + 1).orElse(1L);
            channel = opened;
            return true;
        } catch (IOException | RuntimeException e) {
            opened.close();
            throw e instanceof IOException io ? io : new IOException(file + " is damaged: " + e.getMessage(), e);
        }
    }

    /** Writes a new log holding {@code payload} in its first slot, and moves it into place. */
    private void create(byte[] payload) throws IOException {
        try (FileChannel created = FileChannel.open(temporary, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            ByteBuffer zeros = ByteBuffer.allocate(VoteLog.SLOT_SIZE);
            for (int i = 1; i < VoteLog.SLOTS; i++) {
                zeros.clear();
                long position = (long) i * VoteLog.SLOT_SIZE;
                while (zeros.hasRemaining()) {
                    position += created.write(zeros, position);
                }
            }
            VoteLog.encode(slot, 1, payload);
            long position = 0;
            while (slot.hasRemaining()) {
                position += created.write(slot, position);
            }
            created.force(true);
        }
        try {
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
        }
        forceDirectory();
        channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        slots = VoteLog.SLOTS;
        nextSlot = 1;
        nextSequence = 2;
    }

    private void forceDirectory() throws IOException {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            // Some platforms (Windows) cannot open a directory; the rename is then as durable as the OS makes it.
            if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows")) {
                throw e;
            }
        }
    }

    private void closeChannel() {
        if (channel == null) {
            return;
        }
        try {
            channel.close();
        } catch (IOException e) {
            // Nothing was pending: every write was forced before its store returned.
        }
        channel = null;
    }

    @Override
    public String toString() {
        return "FileDurableState[" + file + "]";
    }
}

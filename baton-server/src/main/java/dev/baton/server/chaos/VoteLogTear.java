package dev.baton.server.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * Tears the newest record of a stopped {@code quorum} node's vote log ({@code DIR/quorum-state}), as a crash in the
 * middle of its write, or a disk that did not keep a write it had reported durable, would: the record's header and
 * the first half of its payload stay, the rest of its slot is zeros, so its checksum fails. The node must see the
 * loss when it starts again and recover from the others before it votes.
 *
 * <p>The layout is the one docs/quorum.md gives: slots of 4,096 bytes, each record starting with the magic
 * {@code BQV1}, its payload's length (int) and its sequence number (long), big-endian. Only a log with two records or
 * more is torn: with one, nothing older would be left, and the node would (rightly) refuse to start on it.
 */
final class VoteLogTear {

    /** The vote log's name in a node's data directory. */
    static final String FILE_NAME = "quorum-state";

    private static final int SLOT_SIZE = 4096;
    private static final int MAGIC = 0x42515631; // "BQV1"
    private static final int HEADER = 16;

    private VoteLogTear() {
    }

    /** What was torn: the slot and the sequence number of the record. */
    record Torn(int slot, long sequence) {
    }

    /**
     * Tears the newest record of the log in {@code dataDir}; empty if there is no log or it holds fewer than two
     * records. The node must not be running.
     */
    static Optional<Torn> tearNewest(Path dataDir) {
        Path file = dataDir.resolve(FILE_NAME);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try (FileChannel log = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer bytes = ByteBuffer.allocate((int) log.size());
            while (bytes.hasRemaining() && log.read(bytes, bytes.position()) >= 0) {
                // reads the whole file
            }
            int slots = bytes.capacity() / SLOT_SIZE;
            int newest = -1;
            int records = 0;
            for (int i = 0; i < slots; i++) {
                int at = i * SLOT_SIZE;
                if (bytes.getInt(at) != MAGIC) {
                    continue;
                }
                records++;
                if (newest < 0 || bytes.getLong(at + 8) > bytes.getLong(newest * SLOT_SIZE + 8)) {
                    newest = i;
                }
            }
            if (records < 2) {
                return Optional.empty();
            }
            int at = newest * SLOT_SIZE;
            long sequence = bytes.getLong(at + 8);
            int kept = HEADER + Math.max(1, bytes.getInt(at + 4) / 2);
            ByteBuffer zeros = ByteBuffer.allocate(SLOT_SIZE - kept);
            long position = at + kept;
            while (zeros.hasRemaining()) {
                position += log.write(zeros, position);
            }
            log.force(true);
            return Optional.of(new Torn(newest, sequence));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot tear the vote log " + file, e);
        }
    }
}

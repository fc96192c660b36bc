package dev.baton.peer.quorum;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * The record layout of {@link FileDurableState}'s vote log. The file is {@link #SLOTS} slots of {@link #SLOT_SIZE}
 * bytes; a slot is all zeros (never written) or starts with one record, big-endian:
 *
 * <pre>
 *   0  magic     4 bytes  "BQV1"
 *   4  length    int      payload bytes, 1 .. SLOT_SIZE - 20
 *   8  sequence  long     1 for the log's first record, one more for each record after it
 *  16  payload   length   the state as text (TextState)
 *  16 + length   CRC-32C  int, of bytes 0 .. 16 + length
 * </pre>
 *
 * The rest of a slot is zeros. The state is the payload of the valid record with the highest sequence number. The
 * slot after that record (the next one written) holds zeros or an older record; if it holds anything else, a newer
 * record was started there and did not survive whole (a torn write, see {@link Scan#torn()}).
 */
final class VoteLog {

    /** Bytes per slot: a 4 KiB block, so a record never shares a disk block with another. */
    static final int SLOT_SIZE = 4096;
    /** Slots in a new log: 256 KiB, so a vote is written over a slot that is 63 records old. */
    static final int SLOTS = 64;

    private static final int MAGIC = 0x42515631; // "BQV1"
    private static final int HEADER = 16;
    private static final int TRAILER = 4;
    static final int MAX_PAYLOAD = SLOT_SIZE - HEADER - TRAILER;

    /** One valid record: where it is, its number and its payload. */
    record Entry(int slot, long sequence, byte[] payload) {

        List<String> lines() {
            return List.of(new String(payload, StandardCharsets.UTF_8).split("\n"));
        }
    }

    /**
     * What a scan of a whole log found: its size in slots, its newest valid record, and whether the slot after that
     * record is torn: neither zeros nor a valid record, so a newer record was being written there and is lost.
     */
    record Scan(int slots, Optional<Entry> last, boolean torn) {
    }

    private VoteLog() {
    }

    /** Fills {@code slot} (cleared first) with the record, zero-padded to a full slot, ready to be written. */
    static void encode(ByteBuffer slot, long sequence, byte[] payload) {
        if (payload.length == 0 || payload.length > MAX_PAYLOAD) {
            throw new IllegalArgumentException("a vote-log record holds 1 to " + MAX_PAYLOAD + " bytes, not "
                    + payload.length);
        }
        slot.clear();
        slot.putInt(MAGIC).putInt(payload.length).putLong(sequence).put(payload);
        CRC32C crc = new CRC32C();
        ByteBuffer covered = slot.duplicate();
        covered.flip();
        crc.update(covered);
        slot.putInt((int) crc.getValue());
        while (slot.hasRemaining()) {
            slot.put((byte) 0);
        }
        slot.flip();
    }

    /**
     * Reads every slot of {@code log} (position 0 to limit) and returns the newest valid record. Slots that are not
     * valid records are skipped: zeros, or a record torn by a crash in the middle of its write.
     *
     * @throws IllegalArgumentException if the file is not a whole number of slots, or holds written slots but no
     *     valid record (a damaged log, not an empty one)
     */
    static Scan scan(ByteBuffer log) {
        int size = log.remaining();
        if (size == 0 || size % SLOT_SIZE != 0) {
            throw new IllegalArgumentException("a vote log is a whole number of " + SLOT_SIZE + "-byte slots, and this"
                    + " file has " + size + " bytes");
        }
        int slots = size / SLOT_SIZE;
        Entry newest = null;
        boolean written = false;
        for (int i = 0; i < slots; i++) {
            ByteBuffer slot = log.slice(log.position() + i * SLOT_SIZE, SLOT_SIZE);
            Entry entry = decode(i, slot);
            if (entry == null) {
                written |= !allZero(slot);
            } else if (newest == null || entry.sequence() > newest.sequence()) {
                newest = entry;
            }
        }
        if (newest == null && written) {
            throw new IllegalArgumentException("no slot holds a valid record");
        }
        boolean torn = false;
        if (newest != null) {
            int next = (newest.slot() + 1) % slots;
            ByteBuffer after = log.slice(log.position() + next * SLOT_SIZE, SLOT_SIZE);
            torn = decode(next, after) == null && !allZero(after);
        }
        return new Scan(slots, Optional.ofNullable(newest), torn);
    }

    /** The record in {@code slot}, or null if it holds none or a damaged one. */
    private static Entry decode(int index, ByteBuffer slot) {
        if (slot.getInt(0) != MAGIC) {
            return null;
        }
        int length = slot.getInt(4);
        if (length <= 0 || length > MAX_PAYLOAD) {
            return null;
        }
        CRC32C crc = new CRC32C();
        crc.update(slot.slice(0, HEADER + length));
        if (slot.getInt(HEADER + length) != (int) crc.getValue()) {
            return null;
        }
        byte[] payload = new byte[length];
        slot.get(HEADER, payload);
        return new Entry(index, slot.getLong(8), payload);
    }

    private static boolean allZero(ByteBuffer slot) {
        for (int i = 0; i < slot.limit(); i++) {
            if (slot.get(i) != 0) {
                return false;
            }
        }
        return true;
    }
}

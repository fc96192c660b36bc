package dev.baton.peer.replica;

import java.util.Arrays;
import java.util.Objects;

/**
 * One key of one map as a replica holds it: the value (or a tombstone for a removed key), who wrote it under which
 * term, and the version the leader that replicated it gave it. Versions order every write of the group: a newer term
 * beats an older one, and within a term the leader numbers its writes from 1 (0 is the state it caught up with).
 *
 * @param map          the map's name
 * @param key          the key
 * @param value        the bytes, or {@code null} for a tombstone: the key was removed
 * @param writerTerm   the term of the write that produced the value, as the fenced map reports it
 * @param writer       the node id that wrote it
 * @param versionTerm  the term of the leader that replicated this entry last
 * @param versionSeq   that leader's number for the write
 */
public record ReplicaEntry(String map, String key, byte[] value, long writerTerm, String writer, long versionTerm,
        long versionSeq) {

    public ReplicaEntry {
        Objects.requireNonNull(map, "map");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(writer, "writer");
    }

    /** Whether this entry records a removal. */
    public boolean tombstone() {
        return value == null;
    }

    /** Whether this entry's version is newer than {@code other}'s. */
    public boolean newerThan(ReplicaEntry other) {
        return versionTerm != other.versionTerm ? versionTerm > other.versionTerm : versionSeq > other.versionSeq;
    }

    /** The same entry under another version. */
    public ReplicaEntry restamped(long term, long seq) {
        return new ReplicaEntry(map, key, value, writerTerm, writer, term, seq);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReplicaEntry e && map.equals(e.map) && key.equals(e.key) && Arrays.equals(value, e.value)
                && writerTerm == e.writerTerm && writer.equals(e.writer) && versionTerm == e.versionTerm
                && versionSeq == e.versionSeq;
    }

    @Override
    public int hashCode() {
        return Objects.hash(map, key, Arrays.hashCode(value), writerTerm, writer, versionTerm, versionSeq);
    }

    @Override
    public String toString() {
        return "ReplicaEntry{" + map + "/" + key + (value == null ? " removed" : " " + value.length + " bytes")
                + ", written in " + writerTerm + " by " + writer + ", version " + versionTerm + "." + versionSeq + "}";
    }
}

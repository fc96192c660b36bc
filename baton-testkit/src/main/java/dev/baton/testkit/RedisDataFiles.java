package dev.baton.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;

/**
 * The persistence files in a private server's directory, with Redis's default names: {@code dump.rdb} (a snapshot)
 * and the append-only file, either Redis 7's multi-part form ({@code appendonlydir/} with a manifest naming a base
 * and incremental files) or Redis 6's single {@code appendonly.aof}.
 */
final class RedisDataFiles {

    private static final String DUMP = "dump.rdb";
    private static final String AOF_DIR = "appendonlydir";
    private static final String AOF_FILE = "appendonly.aof";
    private static final String MANIFEST = AOF_FILE + ".manifest";

    private final Path dir;

    RedisDataFiles(Path dir) {
        this.dir = dir;
    }

    /** Where {@code BGSAVE} writes and where a starting server without AOF loads from. */
    Path dump() {
        return dir.resolve(DUMP);
    }

    /**
     * The append-only file new writes go to: the last incremental file ({@code type i}) of Redis 7's manifest, else
     * Redis 6's single file. Empty if there is no append-only file yet.
     */
    Optional<Path> incrementalAof() {
        Path manifest = dir.resolve(AOF_DIR).resolve(MANIFEST);
        if (Files.isRegularFile(manifest)) {
            String incremental = null;
            for (String line : readLines(manifest)) {
                // "file appendonly.aof.1.incr.aof seq 1 type i": key-value pairs; our names need no quoting.
                String[] fields = line.trim().split("\\s+");
                String name = null;
                String type = null;
                for (int i = 0; i + 1 < fields.length; i += 2) {
                    if (fields[i].equals("file")) {
                        name = fields[i + 1];
                    } else if (fields[i].equals("type")) {
                        type = fields[i + 1];
                    }
                }
                if (name != null && "i".equals(type)) {
                    incremental = name;
                }
            }
            return Optional.ofNullable(incremental).map(name -> dir.resolve(AOF_DIR).resolve(name));
        }
        Path single = dir.resolve(AOF_FILE);
        return Files.isRegularFile(single) ? Optional.of(single) : Optional.empty();
    }

    /** Deletes every snapshot and append-only file, so a server started next has no data. */
    void removeAll() {
        ServerProcesses.deleteRecursively(dir.resolve(AOF_DIR));
        delete(dir.resolve(AOF_FILE));
        delete(dump());
    }

    /** Copies {@code from} to {@code to}, replacing it. */
    static void copy(Path from, Path to) {
        try {
            Files.createDirectories(to.getParent());
            Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy " + from + " to " + to, e);
        }
    }

    /** Deletes {@code file} if it exists. */
    static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + file, e);
        }
    }

    /** The size of {@code file} in bytes. */
    static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the size of " + file, e);
        }
    }

    /** Cuts {@code file} down to its first {@code length} bytes. */
    static void truncate(Path file, long length) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(length);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot truncate " + file + " to " + length + " bytes", e);
        }
    }

    private static List<String> readLines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }
}

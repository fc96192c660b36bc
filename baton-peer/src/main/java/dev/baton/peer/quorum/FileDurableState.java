package dev.baton.peer.quorum;

import dev.baton.peer.transport.PeerAddress;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A {@link DurableState} in a small text file, {@value #FILE_NAME}, under the node's data directory.
 *
 * <p>Each {@link #store} writes the whole state to a temporary file in the same directory, forces it to disk, renames
 * it over the old file (an atomic replace) and forces the directory, so after a crash the file holds either the old
 * or the new state, never a mix, and a stored state survives a power loss. A file that cannot be read back is an
 * error at start-up rather than a silent fresh start: the node would otherwise vote again in an election it may
 * already have voted in.
 */
public final class FileDurableState implements DurableState {

    /** The state file's name inside the data directory. */
    public static final String FILE_NAME = "quorum-state";

    private static final String HEADER = "baton-quorum-state 1";
    private static final String NONE = "-";

    private final Path directory;
    private final Path file;
    private final Path temporary;

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

    /** The state file. */
    public Path file() {
        return file;
    }

    @Override
    public Optional<AcceptorState> load() {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        try {
            return Optional.of(parse(lines));
        } catch (RuntimeException e) {
            throw new IllegalStateException(file + " is damaged (" + e.getMessage() + "); move it away only if this"
                    + " node's votes may be forgotten: it then restarts as a node without saved state", e);
        }
    }

    @Override
    public void store(AcceptorState state) {
        byte[] bytes = format(state).getBytes(StandardCharsets.UTF_8);
        try {
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(bytes);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(true);
            }
            try {
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
            }
            forceDirectory();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot store the election state in " + file, e);
        }
    }

    private void forceDirectory() throws IOException {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            // Some platforms (Windows) cannot open a directory; the rename is then as durable as the OS makes it.
            if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).startsWith("windows")) {
                throw e;
            }
        }
    }

    static String format(AcceptorState s) {
        return HEADER + "\n"
                + "highestVersion=" + s.highestVersion() + "\n"
                + "barrier=" + s.barrier() + "\n"
                + "recovered=" + s.recovered() + "\n"
                + "instance=" + s.instance() + "\n"
                + "promised=" + ballot(s.promised()) + "\n"
                + "acceptedBallot=" + ballot(s.acceptedBallot()) + "\n"
                + "acceptedCandidate=" + (s.acceptedCandidate() == null ? NONE : s.acceptedCandidate().format())
                + "\n"
                + "lastLed=" + s.lastLed() + "\n";
    }

    static AcceptorState parse(List<String> lines) {
        if (lines.isEmpty() || !lines.get(0).equals(HEADER)) {
            throw new IllegalArgumentException("first line is not '" + HEADER + "'");
        }
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            if (line.isEmpty()) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq < 0 || fields.put(line.substring(0, eq), line.substring(eq + 1)) != null) {
                throw new IllegalArgumentException("bad or repeated line '" + line + "'");
            }
        }
        String candidate = field(fields, "acceptedCandidate");
        AcceptorState state = new AcceptorState(
                Long.parseLong(field(fields, "highestVersion")),
                Long.parseLong(field(fields, "barrier")),
                parseBoolean(field(fields, "recovered")),
                Long.parseLong(field(fields, "instance")),
                parseBallot(field(fields, "promised")),
                parseBallot(field(fields, "acceptedBallot")),
                candidate.equals(NONE) ? null : PeerAddress.parse(candidate),
                Long.parseLong(field(fields, "lastLed")));
        if (!fields.isEmpty()) {
            throw new IllegalArgumentException("unknown fields " + fields.keySet());
        }
        return state;
    }

    private static String field(Map<String, String> fields, String name) {
        String value = fields.remove(name);
        if (value == null) {
            throw new IllegalArgumentException("missing " + name);
        }
        return value;
    }

    private static boolean parseBoolean(String text) {
        return switch (text) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("not a boolean: " + text);
        };
    }

    private static String ballot(Ballot b) {
        return b == null ? NONE : b.version() + " " + b.round() + " " + b.proposer().format();
    }

    private static Ballot parseBallot(String text) {
        if (text.equals(NONE)) {
            return null;
        }
        String[] parts = text.split(" ");
        if (parts.length != 3) {
            throw new IllegalArgumentException("bad ballot '" + text + "'");
        }
        return new Ballot(Long.parseLong(parts[0]), Long.parseLong(parts[1]), PeerAddress.parse(parts[2]));
    }

    @Override
    public String toString() {
        return "FileDurableState[" + file + "]";
    }
}

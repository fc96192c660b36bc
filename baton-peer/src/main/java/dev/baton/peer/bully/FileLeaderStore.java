package dev.baton.peer.bully;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.store.LeaderRecord;
import dev.baton.core.store.LeaderRecordStore;
import dev.baton.core.store.LeaderRecordWrite;
import dev.baton.core.store.StoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader record in a local file, shared by every process on the machine that names the same path (seed 004's
 * flat-file leader store). One file holds the records of any number of groups as JSON:
 *
 * <pre>{@code {"format":1,"groups":{"orders":{"term":3,"leaderId":"127.0.0.1:7401","processId":5,"address":"127.0.0.1:7401"}}}}</pre>
 *
 * <p>Every call takes an exclusive lock on {@code <file>.lock} (a file lock between processes, a lock per path within
 * this JVM), so the compare-and-set is atomic across processes. A write goes to {@code <file>.tmp}, is forced to disk
 * and renamed over the file, so a crash leaves the old record or the new one, never a torn one. A file that is not
 * such JSON is reported (a {@link StoreException} naming the file and the problem) and never overwritten.
 *
 * <p>Calls run on one daemon thread per store and never block the caller; {@link #close()} stops it, and later calls
 * fail with a {@link StoreException}. Calls already queued when the store closes still run, and {@code close()} waits
 * (a few seconds at most) for them, so nothing touches the file after it returns.
 */
public final class FileLeaderStore implements LeaderRecordStore {

    private static final int FORMAT = 1;
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);
    private static final Logger LOG = LoggerFactory.getLogger(FileLeaderStore.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<Path, Object> IN_PROCESS_LOCKS = new ConcurrentHashMap<>();
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final Path file;
    private final Path lockFile;
    private final Path tempFile;
    private final ExecutorService worker;

    /** A store on {@code file}; the file and its directory are created on the first write. */
    public FileLeaderStore(Path file) {
        Path absolute = Objects.requireNonNull(file, "file").toAbsolutePath().normalize();
        if (absolute.getFileName() == null) {
            throw new IllegalArgumentException("the leader store file must name a file, was " + file);
        }
        this.file = absolute;
        this.lockFile = absolute.resolveSibling(absolute.getFileName() + ".lock");
        this.tempFile = absolute.resolveSibling(absolute.getFileName() + ".tmp");
        this.worker = Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "baton-leader-file-" + THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** The file the records live in. */
    public Path file() {
        return file;
    }

    @Override
    public CompletableFuture<Optional<LeaderRecord>> readLeader(String group) {
        Objects.requireNonNull(group, "group");
        return call(() -> Optional.ofNullable(load().get(group)));
    }

    @Override
    public CompletableFuture<LeaderRecordWrite> writeLeader(LeaderRecord record) {
        Objects.requireNonNull(record, "record");
        return call(() -> {
            Map<String, LeaderRecord> records = load();
            LeaderRecordWrite result = LeaderRecordRule.decide(records.get(record.group()), record);
            if (result.accepted() && !record.equals(records.get(record.group()))) {
                records.put(record.group(), record);
                save(records);
            }
            return result;
        });
    }

    @Override
    public String describe() {
        return "file:" + file;
    }

    @Override
    public void close() {
        worker.shutdown();
        try {
            if (!worker.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("{}: a call was still running {} after close; it may still write the file", describe(),
                        CLOSE_WAIT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private <T> CompletableFuture<T> call(Supplier<T> work) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            worker.execute(() -> {
                try {
                    result.complete(locked(work));
                } catch (StoreException e) {
                    result.completeExceptionally(e);
                } catch (RuntimeException e) {
                    result.completeExceptionally(new StoreException(describe() + ": " + e, e));
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new StoreException("the leader store " + describe() + " is closed"));
        }
        return result;
    }

    private <T> T locked(Supplier<T> work) {
        synchronized (IN_PROCESS_LOCKS.computeIfAbsent(file, f -> new Object())) {
            try {
                Files.createDirectories(file.getParent());
                try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE); FileLock ignored = channel.lock()) {
                    return work.get();
                }
            } catch (IOException e) {
                throw new StoreException(describe() + ": " + e, e);
            }
        }
    }

    private Map<String, LeaderRecord> load() {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return new TreeMap<>();
        } catch (IOException e) {
            throw new StoreException(describe() + ": cannot read: " + e, e);
        }
        try {
            return parse(bytes);
        } catch (IOException | IllegalArgumentException e) {
            String why = e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse("");
            throw new StoreException(describe() + " is damaged (" + why
                    + "); it is left as it is: move it away to start the groups in it afresh", e);
        }
    }

    private Map<String, LeaderRecord> parse(byte[] bytes) throws IOException {
        JsonNode root = JSON.readTree(bytes);
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("not a JSON object");
        }
        if (root.path("format").asInt(-1) != FORMAT) {
            throw new IllegalArgumentException("unknown format " + root.get("format") + ", expected " + FORMAT);
        }
        JsonNode groups = root.get("groups");
        if (groups == null || !groups.isObject()) {
            throw new IllegalArgumentException("no \"groups\" object");
        }
        Map<String, LeaderRecord> records = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = groups.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            JsonNode r = entry.getValue();
            records.put(entry.getKey(), new LeaderRecord(entry.getKey(), number(r, "term"), text(r, "leaderId"),
                    number(r, "processId"), text(r, "address")));
        }
        return records;
    }

    private static long number(JsonNode record, String field) {
        JsonNode value = record.get(field);
        if (value == null || !value.canConvertToLong() || !value.isIntegralNumber()) {
            throw new IllegalArgumentException("field '" + field + "' missing or not a whole number");
        }
        return value.asLong();
    }

    private static String text(JsonNode record, String field) {
        JsonNode value = record.get(field);
        if (value == null || !value.isTextual()) {
            throw new IllegalArgumentException("field '" + field + "' missing or not a string");
        }
        return value.asText();
    }

    private void save(Map<String, LeaderRecord> records) {
        ObjectNode root = JSON.createObjectNode();
        root.put("format", FORMAT);
        ObjectNode groups = root.putObject("groups");
        records.forEach((group, r) -> {
            ObjectNode node = groups.putObject(group);
            node.put("term", r.term());
            node.put("leaderId", r.leaderId());
            node.put("processId", r.processId());
            node.put("address", r.address());
        });
        try {
            byte[] bytes = (JSON.writeValueAsString(root) + "\n").getBytes(StandardCharsets.UTF_8);
            try (FileChannel out = FileChannel.open(tempFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer buffer = ByteBuffer.wrap(bytes);
                while (buffer.hasRemaining()) {
                    out.write(buffer);
                }
                out.force(true);
            }
            Files.move(tempFile, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            syncDirectory();
        } catch (IOException e) {
            throw new StoreException(describe() + ": cannot write: " + e, e);
        }
    }

    /** Makes the rename durable where the platform allows it (Linux); elsewhere the rename is as durable as it gets. */
    private void syncDirectory() {
        try (FileChannel directory = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
            directory.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // Not supported on this platform (e.g. Windows): nothing more to do.
        }
    }

    @Override
    public String toString() {
        return "FileLeaderStore{" + file + "}";
    }
}

package dev.baton.server;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.Election;
import dev.baton.core.Leadership;
import dev.baton.core.fencing.FencedRegister;
import dev.baton.core.store.FencedWriteResult;
import dev.baton.core.time.Clock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --fenced-writes}: while this node believes it leads, it writes {@code (term, node, seq)} to the group's
 * fenced register every interval and prints the store's verdict. It is the observable half of the fencing story: a
 * leader that was paused past its lease and wakes up either sees that its leadership is no longer valid and stops
 * writing, or, if it raced past that check, has its write refused by the store because a newer term exists.
 *
 * <p>Runs on its own daemon thread, never on the election's threads, so a slow store call here cannot delay a
 * renewal. Writes go out with a fixed delay between them, so a process that was paused does not fire a burst of
 * catch-up writes when it resumes.
 */
final class FencedWriter implements AutoCloseable {

    /** The register the node writes to; tests and operators read it under this name. */
    static final String REGISTER = "fenced-writes";

    private static final Logger log = LoggerFactory.getLogger(FencedWriter.class);

    private final Election election;
    private final FencedRegister register;
    private final Duration interval;
    private final Duration timeout;
    private final Clock clock;
    private final EventJson json;
    private final JsonLines lines;
    private final ScheduledExecutorService thread;
    private long sequence;

    FencedWriter(Election election, Duration interval, Duration timeout, Clock clock, EventJson json,
            JsonLines lines) {
        this.election = election;
        this.register = election.fencedRegister(REGISTER);
        this.interval = interval;
        this.timeout = timeout;
        this.clock = clock;
        this.json = json;
        this.lines = lines;
        this.thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread t = new Thread(runnable, "baton-fenced-writes");
            t.setDaemon(true);
            return t;
        });
    }

    void start() {
        long nanos = interval.toNanos();
        thread.scheduleWithFixedDelay(this::tick, nanos, nanos, TimeUnit.NANOSECONDS);
    }

    private void tick() {
        try {
            writeIfLeading();
        } catch (RuntimeException e) {
            // A scheduled task that throws is never run again; one bad tick must not end the loop.
            log.warn("Fenced write failed", e);
        }
    }

    private void writeIfLeading() {
        Optional<Leadership> held = election.leadership();
        if (held.isEmpty() || !held.get().isValid()) {
            return;
        }
        Leadership leadership = held.get();
        long seq = ++sequence;
        // Stamped after the validity check and before sending: an accepted write's ts precedes its acceptance.
        Instant sentAt = clock.instant();
        byte[] value = payload(leadership, seq);
        try {
            FencedWriteResult result = register.writeWithTerm(leadership.nodeId(), leadership.term(), value)
                    .get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            lines.write(json.fencedWrite(leadership.term(), seq, result.accepted(), result.currentTerm(), sentAt));
        } catch (TimeoutException e) {
            lines.write(json.error("fenced write " + seq + " of term " + leadership.term()
                    + " got no answer within " + timeout.toMillis() + " ms", clock.instant()));
        } catch (ExecutionException e) {
            lines.write(json.error("fenced write " + seq + " of term " + leadership.term() + " failed: "
                    + e.getCause(), clock.instant()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // closing
        }
    }

    private static byte[] payload(Leadership leadership, long seq) {
        ObjectNode value = JsonNodeFactory.instance.objectNode();
        value.put("term", leadership.term());
        value.put("node", leadership.nodeId());
        value.put("seq", seq);
        return value.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Stops writing and waits for a write in flight, at most its timeout. */
    @Override
    public void close() {
        thread.shutdownNow();
        try {
            thread.awaitTermination(timeout.toMillis() + 100, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package dev.baton.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.Election;
import dev.baton.core.ElectionEvent;
import dev.baton.core.Leadership;
import dev.baton.core.fencing.FencedRegister;
import dev.baton.core.store.FencedWriteResult;
import dev.baton.core.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --fenced-writes}: while this node believes it leads, it writes {@code (term, node, seq)} to the group's
 * fenced register every interval and prints the store's verdict. It is the observable half of the fencing story: a
 * leader that was paused past its lease and wakes up either sees that its leadership is no longer valid and stops
 * writing, or, if it raced past that check, has its write refused by the store because a newer term exists.
 *
 * <p>Every attempt prints one {@code fenced-write} line: {@code outcome} {@code ok} or {@code refused} with the
 * verdict, or {@code unknown} when the write timed out or failed (it may still have been applied). For the fault
 * harness, the hidden {@code --fenced-writes-to} sends the writes to an external fenced resource instead of the store
 * ({@link FenceClient}), {@code --naive} writes whenever the node's events say it leads, without asking
 * {@link Leadership#isValid()} (what the seeds do), and {@code --chaos-hooks} adds {@code sent} and {@code answered},
 * the real {@link System#nanoTime()} around the call.
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
    private final FencedDestination destination;
    private final Duration interval;
    private final Duration timeout;
    private final Clock clock;
    private final EventJson json;
    private final JsonLines lines;
    private final ChaosSettings chaos;
    private final ScheduledExecutorService thread;
    /** {@code --naive}: the leadership the node's events last said it holds; null after it was lost. */
    private volatile Leadership believed;
    private long sequence;

    FencedWriter(Election election, FencedDestination destination, Duration interval, Duration timeout, Clock clock,
            EventJson json, JsonLines lines, ChaosSettings chaos) {
        this.election = election;
        this.destination = destination;
        this.interval = interval;
        this.timeout = timeout;
        this.clock = clock;
        this.json = json;
        this.lines = lines;
        this.chaos = chaos;
        this.thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread t = new Thread(runnable, "baton-fenced-writes");
            t.setDaemon(true);
            return t;
        });
        if (chaos.naive()) {
            // On the dispatcher thread, in event order: cheap, and the belief changes exactly when the node is told.
            election.addListener(this::believe, Runnable::run);
        }
    }

    /**
     * The writer for a node: to {@code --fenced-writes-to} if given, else to {@code register}, the store's register
     * that the store election of a store backend offers.
     *
     * @throws IllegalStateException if neither is there (the command line accepts {@code --fenced-writes} only with
     *                               one of them)
     */
    static FencedWriter create(Election election, Optional<FencedRegister> register, Duration interval,
            Duration timeout, Clock clock, EventJson json, JsonLines lines, ChaosSettings chaos) {
        FencedDestination destination = chaos.fencedWritesTo().<FencedDestination>map(FenceClient::new)
                .orElseGet(() -> FencedDestination.register(register.orElseThrow(() -> new IllegalStateException(
                        "fenced writes need a store backend or --fenced-writes-to"))));
        return new FencedWriter(election, destination, interval, timeout, clock, json, lines, chaos);
    }

    void start() {
        long nanos = interval.toNanos();
        thread.scheduleWithFixedDelay(this::tick, nanos, nanos, TimeUnit.NANOSECONDS);
    }

    private void believe(ElectionEvent event) {
        if (event instanceof ElectionEvent.LeadershipAcquired acquired) {
            believed = acquired.leadership();
        } else if (event instanceof ElectionEvent.LeadershipLost lost) {
            Leadership held = believed;
            if (held != null && held.term() == lost.term()) {
                believed = null;
            }
        }
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
        Optional<Leadership> held = chaos.naive() ? Optional.ofNullable(believed)
                : election.leadership().filter(Leadership::isValid);
        if (held.isEmpty()) {
            return;
        }
        Leadership leadership = held.get();
        long seq = ++sequence;
        // Stamped after the validity check and before sending: an accepted write's ts precedes its acceptance.
        Instant sentAt = clock.instant();
        long sent = System.nanoTime();
        ObjectNode line;
        try {
            FencedWriteResult result = destination.write(leadership, seq, timeout);
            long answered = System.nanoTime();
            line = stamped(json.fencedWrite(leadership.term(), seq, result, null, sentAt), sent);
            if (chaos.hooks()) {
                EventJson.stamp(line, "answered", answered);
            }
        } catch (FencedDestination.NoAnswer e) {
            line = stamped(json.fencedWrite(leadership.term(), seq, null, "fenced write " + seq + " of term "
                    + leadership.term() + " " + e.getMessage(), sentAt), sent);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // closing: the write's fate is unknown, and no one reads it any more
            return;
        }
        lines.write(line);
    }

    /** With {@code --chaos-hooks}: {@code mono} (the event is the send, like {@code ts}) and {@code sent}. */
    private ObjectNode stamped(ObjectNode line, long sent) {
        if (chaos.hooks()) {
            EventJson.stamp(line, "mono", sent);
            EventJson.stamp(line, "sent", sent);
        }
        return line;
    }

    /** Stops writing and waits for a write in flight, at most its timeout; then closes the destination. */
    @Override
    public void close() {
        thread.shutdownNow();
        try {
            thread.awaitTermination(timeout.toMillis() + 100, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            destination.close();
        }
    }
}

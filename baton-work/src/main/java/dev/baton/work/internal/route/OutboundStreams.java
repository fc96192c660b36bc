package dev.baton.work.internal.route;

import dev.baton.core.time.Clock;
import dev.baton.work.worker.WorkerMessage;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's side of at-least-once result delivery over a fire-and-forget bus: one stream per receiving process,
 * each result numbered ({@code seq} from 1), kept until the process acknowledges it, and published again every
 * {@code resendAfter} until then. The receiver ({@link InboundStreams}) drops duplicates, so a result reaches each
 * listener once unless the receiver restarted; at-least-once is the promise.
 *
 * <p>Bounded: a process that acknowledges nothing holds at most {@code maxUnacked} results; beyond that the oldest
 * are dropped, counted and logged. When a process leaves, the results its global listeners were to get are handed
 * back for another process ({@link #dropProcess}) and the rest are given up.
 *
 * <p>A stream's numbers never start again: a process that leaves and comes back continues where it stopped. Every
 * message, sent or re-sent, carries the stream's {@code floor} (its oldest result still kept): the receiver skips
 * what lies below, so results given up (dropped over the bound, handed to another process, or sent to an earlier
 * incarnation of a restarted receiver) never hold its acknowledgements back.
 *
 * <p>Batches: with {@code maxPerMessage} above 1, results for a process are not published as they are sent but kept
 * in an outbox, in order, and published together as one {@link BusMessage.Detections} when the driver calls
 * {@link #flush()} (the leader does after the results read in one burst, so a quiet stream waits for nobody), or as
 * soon as a process's outbox holds {@code maxPerMessage} results or {@value #MAX_BATCH_BYTES} bytes. A result is kept
 * for re-sending from the moment it is sent, before it is published: a batch that is lost, or whose publish fails, is
 * re-sent like a lost single result, and a stream's results go out in the order they were numbered.
 *
 * <p>Not thread-safe: the leader's scheduler drives it.
 */
public final class OutboundStreams {

    /** Publishes a message to a process's channel. */
    @FunctionalInterface
    public interface Publisher {
        void publish(String processId, byte[] message);

        /** Publishes a message that carries {@code results} results (a batch); by default as any other. */
        default void publish(String processId, byte[] message, int results) {
            publish(processId, message);
        }
    }

    /** A batch is published once its results add up to this many bytes, whatever {@code maxPerMessage} allows. */
    public static final int MAX_BATCH_BYTES = 256 * 1024;

    /** A result not yet acknowledged. */
    public record Pending(long seq, boolean global, String workerUrl, String timestamp,
                          WorkerMessage.ImageDetection data, byte[] bytes, long sentAtNanos) {
    }

    private static final Logger log = LoggerFactory.getLogger(OutboundStreams.class);

    private final String group;
    private final String sender;
    private final String streamId;
    private final BusCodec codec;
    private final Publisher publisher;
    private final Clock clock;
    private final long resendAfterNanos;
    private final int maxUnacked;
    private final int maxPerMessage;
    private final BadMessageLog overflowLog;
    private final Map<String, Stream> streams = new HashMap<>();
    // Processes whose outbox holds results, in the order their first result was sent.
    private final Map<String, Outbox> outboxes = new LinkedHashMap<>();
    private long sent;
    private long resent;
    private long dropped;

    /**
     * Streams that publish every result in a message of its own, as it is sent.
     *
     * @param sender   this (the leader's) process id, which receivers acknowledge to
     * @param streamId unique per leadership, e.g. {@code term-17}
     */
    public OutboundStreams(String group, String sender, String streamId, BusCodec codec, Publisher publisher,
            Clock clock, Duration resendAfter, int maxUnacked) {
        this(group, sender, streamId, codec, publisher, clock, resendAfter, maxUnacked, 1);
    }

    /**
     * Streams that publish up to {@code maxPerMessage} results of a process in one message (1: each alone, at once).
     *
     * @param sender   this (the leader's) process id, which receivers acknowledge to
     * @param streamId unique per leadership, e.g. {@code term-17}
     */
    public OutboundStreams(String group, String sender, String streamId, BusCodec codec, Publisher publisher,
            Clock clock, Duration resendAfter, int maxUnacked, int maxPerMessage) {
        if (maxPerMessage < 1) {
            throw new IllegalArgumentException("maxPerMessage must be at least 1, was " + maxPerMessage);
        }
        this.maxPerMessage = maxPerMessage;
        this.group = Objects.requireNonNull(group, "group");
        this.sender = Objects.requireNonNull(sender, "sender");
        this.streamId = Objects.requireNonNull(streamId, "streamId");
        this.codec = Objects.requireNonNull(codec, "codec");
        this.publisher = Objects.requireNonNull(publisher, "publisher");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.resendAfterNanos = resendAfter.toNanos();
        this.maxUnacked = maxUnacked;
        this.overflowLog = new BadMessageLog(log, "routing", clock, Duration.ofSeconds(10));
    }

    /** The id of this leader's streams. */
    public String streamId() {
        return streamId;
    }

    /** Sends a result to {@code processId}, numbered on its stream, and keeps it until acknowledged. */
    public void send(String processId, boolean global, String workerUrl, String timestamp,
            WorkerMessage.ImageDetection data) {
        Stream stream = streams.computeIfAbsent(processId, p -> new Stream());
        long seq = stream.nextSeq++;
        if (stream.unacked.size() >= maxUnacked) {
            stream.unacked.pollFirst();
            dropped++;
            overflowLog.dropped("process " + processId + " has not acknowledged " + maxUnacked
                    + " results; the oldest is dropped");
        }
        long floor = stream.unacked.isEmpty() ? seq : stream.unacked.peekFirst().seq();
        byte[] bytes = encode(seq, floor, global, workerUrl, timestamp, data);
        stream.unacked.addLast(new Pending(seq, global, workerUrl, timestamp, data, bytes, clock.nanoTime()));
        sent++;
        emit(processId, bytes);
    }

    /** Publishes {@code bytes} now, or adds them to the process's outbox (published when full or flushed). */
    private void emit(String processId, byte[] bytes) {
        if (maxPerMessage == 1) {
            publisher.publish(processId, bytes);
            return;
        }
        Outbox outbox = outboxes.computeIfAbsent(processId, p -> new Outbox());
        outbox.results.add(bytes);
        outbox.bytes += bytes.length;
        if (outbox.results.size() >= maxPerMessage || outbox.bytes >= MAX_BATCH_BYTES) {
            outboxes.remove(processId);
            publishBatch(processId, outbox);
        }
    }

    /** Whether results wait in an outbox for {@link #flush()}. */
    public boolean hasUnflushed() {
        return !outboxes.isEmpty();
    }

    /**
     * Publishes every outbox as one message per process. A publish that throws is logged and the other processes'
     * batches still go out: the results stay kept, and are re-sent.
     */
    public void flush() {
        while (!outboxes.isEmpty()) {
            Map.Entry<String, Outbox> first = outboxes.entrySet().iterator().next();
            outboxes.remove(first.getKey());
            publishBatch(first.getKey(), first.getValue());
        }
    }

    private void publishBatch(String processId, Outbox outbox) {
        byte[] message = codec.encodeDetections(group, outbox.results);
        try {
            publisher.publish(processId, message, outbox.results.size());
        } catch (RuntimeException e) {
            log.debug("could not publish {} results to {}; they are re-sent: {}", outbox.results.size(), processId,
                    e.toString());
        }
    }

    private byte[] encode(long seq, long floor, boolean global, String workerUrl, String timestamp,
            WorkerMessage.ImageDetection data) {
        return codec.encode(new BusMessage.Detection(group, sender, streamId, seq, floor, global, workerUrl,
                timestamp, data));
    }

    /** A process acknowledged every result of {@code stream} up to {@code upTo}. */
    public void acked(String processId, String stream, long upTo) {
        Stream s = streams.get(processId);
        if (s == null || !streamId.equals(stream)) {
            return;
        }
        while (!s.unacked.isEmpty() && s.unacked.peekFirst().seq() <= upTo) {
            s.unacked.pollFirst();
        }
    }

    /** Publishes again every result sent at least {@code resendAfter} ago and not yet acknowledged. */
    public void resendDue() {
        flush(); // first what was sent before: a stream's results go out in the order they were numbered
        long now = clock.nanoTime();
        for (Map.Entry<String, Stream> entry : streams.entrySet()) {
            ArrayDeque<Pending> unacked = entry.getValue().unacked;
            if (unacked.isEmpty()) {
                continue;
            }
            long floor = unacked.peekFirst().seq();
            int n = unacked.size();
            for (int i = 0; i < n; i++) {
                Pending p = unacked.pollFirst();
                if (now - p.sentAtNanos() >= resendAfterNanos) {
                    // With the floor of now: a receiver that restarted since must not wait for what was settled.
                    byte[] bytes = encode(p.seq(), floor, p.global(), p.workerUrl(), p.timestamp(), p.data());
                    emit(entry.getKey(), bytes);
                    resent++;
                    p = new Pending(p.seq(), p.global(), p.workerUrl(), p.timestamp(), p.data(), bytes, now);
                }
                unacked.addLast(p);
            }
        }
        flush();
    }

    /**
     * Gives up {@code processId}'s unacknowledged results (the process left) and returns those meant for its global
     * listeners, in order, for the caller to route to another process. The stream keeps its numbering: if the
     * process comes back, its results continue after the last one sent.
     */
    public List<Pending> dropProcess(String processId) {
        Stream s = streams.get(processId);
        outboxes.remove(processId);
        List<Pending> global = new ArrayList<>();
        if (s != null) {
            for (Iterator<Pending> it = s.unacked.iterator(); it.hasNext(); ) {
                Pending p = it.next();
                if (p.global()) {
                    global.add(p);
                }
            }
            s.unacked.clear();
        }
        return global;
    }

    /** The processes with results waiting for an acknowledgement. */
    public List<String> processes() {
        return streams.entrySet().stream().filter(e -> !e.getValue().unacked.isEmpty()).map(Map.Entry::getKey)
                .toList();
    }

    /** Results waiting for an acknowledgement, all streams. */
    public int pending() {
        int n = 0;
        for (Stream s : streams.values()) {
            n += s.unacked.size();
        }
        return n;
    }

    /** Results sent (first sends). */
    public long sent() {
        return sent;
    }

    /** Results published again. */
    public long resent() {
        return resent;
    }

    /** Results dropped unacknowledged because a process held {@code maxUnacked}. */
    public long dropped() {
        return dropped;
    }

    /** Encoded results for one process waiting to go out together. */
    private static final class Outbox {
        final List<byte[]> results = new ArrayList<>();
        int bytes;
    }

    private static final class Stream {
        long nextSeq = 1;
        final ArrayDeque<Pending> unacked = new ArrayDeque<>();
    }
}

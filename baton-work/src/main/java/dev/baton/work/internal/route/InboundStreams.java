package dev.baton.work.internal.route;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeSet;

/**
 * A process's side of result delivery: per stream (one per leader and leadership), which results arrived, so that a
 * result published again is delivered once, and how far to acknowledge: the highest {@code seq} up to which every
 * result arrived or was settled by the sender (a gap is filled by the sender's resend, or skipped when the sender's
 * {@code floor} passes it: it gave that result up). At most {@code maxStreams} streams are remembered, the least
 * recently used forgotten first. Not thread-safe: the process's scheduler drives it.
 */
public final class InboundStreams {

    private final int maxStreams;
    private final Map<String, State> streams = new HashMap<>();
    private long tick;
    private long duplicates;

    public InboundStreams(int maxStreams) {
        this.maxStreams = maxStreams;
    }

    /** Records that result {@code seq} of {@code stream} arrived; true if it is new (deliver it), false if seen. */
    public boolean accept(String stream, long seq) {
        return accept(stream, seq, 0);
    }

    /**
     * Records that result {@code seq} of {@code stream} arrived, sent when the sender kept nothing below
     * {@code floor} (0: not said); true if it is new (deliver it), false if seen or settled.
     */
    public boolean accept(String stream, long seq, long floor) {
        State s = streams.get(stream);
        if (s == null) {
            if (streams.size() >= maxStreams) {
                evictOldest();
            }
            s = new State();
            streams.put(stream, s);
        }
        s.used = ++tick;
        s.unacked++;
        if (floor - 1 > s.watermark) {
            s.watermark = floor - 1; // the sender will not send what lies below again: stop waiting for it
            s.above.headSet(floor, false).clear();
            advance(s);
        }
        if (seq <= s.watermark || s.above.contains(seq)) {
            duplicates++;
            return false;
        }
        if (seq == s.watermark + 1) {
            s.watermark = seq;
            advance(s);
        } else {
            s.above.add(seq);
        }
        return true;
    }

    private static void advance(State s) {
        while (!s.above.isEmpty() && s.above.first() == s.watermark + 1) {
            s.watermark = s.above.pollFirst();
        }
    }

    /** Receipts on {@code stream} since its last acknowledgement. */
    public int unacked(String stream) {
        State s = streams.get(stream);
        return s == null ? 0 : s.unacked;
    }

    /** The acknowledgement to send for {@code stream} now (every result up to it arrived); resets its count. */
    public long ack(String stream) {
        State s = streams.get(stream);
        if (s == null) {
            return 0;
        }
        s.unacked = 0;
        return s.watermark;
    }

    /** Streams with receipts not yet acknowledged. */
    public Iterable<String> needingAck() {
        return streams.entrySet().stream().filter(e -> e.getValue().unacked > 0).map(Map.Entry::getKey).toList();
    }

    /** Duplicates dropped. */
    public long duplicates() {
        return duplicates;
    }

    private void evictOldest() {
        String oldest = null;
        long least = Long.MAX_VALUE;
        for (Iterator<Map.Entry<String, State>> it = streams.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, State> e = it.next();
            if (e.getValue().used < least) {
                least = e.getValue().used;
                oldest = e.getKey();
            }
        }
        streams.remove(oldest);
    }

    private static final class State {
        long watermark;
        final TreeSet<Long> above = new TreeSet<>();
        int unacked;
        long used;
    }
}

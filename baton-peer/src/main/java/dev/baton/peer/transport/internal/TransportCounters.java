package dev.baton.peer.transport.internal;

import dev.baton.peer.transport.DropReason;
import dev.baton.peer.transport.RejectReason;
import dev.baton.peer.transport.TransportStats;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/** The live counters behind {@link TransportStats}; thread-safe, shared by every transport implementation. */
public final class TransportCounters {

    private final LongAdder sent = new LongAdder();
    private final LongAdder received = new LongAdder();
    private final LongAdder opened = new LongAdder();
    private final LongAdder closed = new LongAdder();
    private final AtomicLongArray dropped = new AtomicLongArray(DropReason.values().length);
    private final AtomicLongArray rejected = new AtomicLongArray(RejectReason.values().length);

    public void sent() {
        sent.increment();
    }

    public void received() {
        received.increment();
    }

    public void connectionOpened() {
        opened.increment();
    }

    public void connectionClosed() {
        closed.increment();
    }

    public void dropped(DropReason reason) {
        dropped(reason, 1);
    }

    public void dropped(DropReason reason, int count) {
        dropped.addAndGet(reason.ordinal(), count);
    }

    public void rejected(RejectReason reason) {
        rejected.incrementAndGet(reason.ordinal());
    }

    public TransportStats snapshot() {
        Map<DropReason, Long> d = new EnumMap<>(DropReason.class);
        for (DropReason r : DropReason.values()) {
            d.put(r, dropped.get(r.ordinal()));
        }
        Map<RejectReason, Long> j = new EnumMap<>(RejectReason.class);
        for (RejectReason r : RejectReason.values()) {
            j.put(r, rejected.get(r.ordinal()));
        }
        return new TransportStats(sent.sum(), received.sum(), opened.sum(), closed.sum(), d, j);
    }
}

package dev.baton.server.internal.api;

import dev.baton.core.Election;
import dev.baton.core.ElectionEvent;
import dev.baton.core.LeaderInfo;
import dev.baton.core.eventlog.ClusterEventRecorder;
import dev.baton.core.store.ClusterEvent;
import dev.baton.core.store.EventLogStore;
import dev.baton.core.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * This node's own recent cluster events, in memory: what {@code GET /cluster/events} answers when the store's event
 * log cannot be read (the store is down, which is exactly when an operator wants to know what happened). The same
 * {@link ClusterEventRecorder} that writes the store's log fills it, so both speak the seed's vocabulary
 * ({@code leader_elected}, {@code node_joined}, ...); it keeps the newest {@value #CAPACITY} events, stamped by this
 * node's clock.
 */
final class LocalEventLog implements EventLogStore {

    static final int CAPACITY = 1_000;

    private final Clock clock;
    private final ArrayDeque<ClusterEvent> events = new ArrayDeque<>();
    private long nextId = 1;

    private LocalEventLog(Clock clock) {
        this.clock = clock;
    }

    /**
     * A log that records {@code election}'s events from now on; attach it before the election starts.
     *
     * <p>Besides what the recorder writes (a node records the terms it won itself), a follower records each leader it
     * learns of as {@code leader_elected} under that leader's id, with {@code observed_by} naming this node: on the
     * serverless backends this log is the only history there is, and without it a follower's dashboard would say that
     * no leadership change was ever recorded while it follows a leader of term 3.
     */
    static LocalEventLog recording(Election election, Clock clock) {
        LocalEventLog log = new LocalEventLog(clock);
        ClusterEventRecorder.attach(election, log);
        election.addListener(event -> {
            if (event instanceof ElectionEvent.LeaderChanged changed && changed.leader().isPresent()
                    && !changed.leader().get().nodeId().equals(election.nodeId())) {
                LeaderInfo leader = changed.leader().get();
                log.appendEvent(election.group(), leader.nodeId(), "leader_elected",
                        Map.of("term", Long.toString(leader.term()), "observed_by", election.nodeId()));
            }
        });
        return log;
    }

    @Override
    public synchronized CompletableFuture<Void> appendEvent(String group, String nodeId, String type,
            Map<String, String> data) {
        events.addLast(new ClusterEvent(nextId++, nodeId, type, data, clock.instant()));
        while (events.size() > CAPACITY) {
            events.removeFirst();
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public synchronized CompletableFuture<List<ClusterEvent>> recentEvents(String group, int limit) {
        List<ClusterEvent> newest = new ArrayList<>(Math.min(limit, events.size()));
        for (Iterator<ClusterEvent> it = events.descendingIterator(); it.hasNext() && newest.size() < limit; ) {
            newest.add(it.next());
        }
        return CompletableFuture.completedFuture(newest);
    }
}

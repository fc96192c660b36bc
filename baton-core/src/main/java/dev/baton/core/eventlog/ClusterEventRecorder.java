package dev.baton.core.eventlog;

import dev.baton.core.Election;
import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionListener;
import dev.baton.core.Registration;
import dev.baton.core.store.EventLogStore;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes an election's events to the store's {@link EventLogStore event log}, in the seed's vocabulary
 * ({@code leader_elected}, {@code leader_lost}, {@code node_joined}, {@code node_left}, {@code election_started},
 * {@code cluster_degraded}, plus {@code cluster_recovered} and {@code node_state_changed}).
 *
 * <p>Each node records what it alone knows: a leader records the terms it won and lost and, since only the leader
 * tracks membership, the nodes that joined, changed state and left; every node records its own elections and its
 * own degraded periods (once when the trouble starts, once when it clears). Lease renewals are not recorded: a row per
 * renewal would grow without bound and says nothing an operator needs.
 *
 * <p>Appends are sent one at a time, in event order, and never block the election. While the store is unreachable,
 * up to {@value #MAX_PENDING} events wait and go out with the next event after it answers again (so the history of
 * an outage is written once the outage ends); beyond that the oldest are dropped with a warning.
 */
public final class ClusterEventRecorder implements ElectionListener {

    static final int MAX_PENDING = 256;

    private static final Logger log = LoggerFactory.getLogger(ClusterEventRecorder.class);

    private record Entry(String type, Map<String, String> data) {
    }

    private final Election election;
    private final EventLogStore store;
    private final ArrayDeque<Entry> pending = new ArrayDeque<>();
    private boolean inFlight;
    private boolean degraded;
    private long dropped;

    private ClusterEventRecorder(Election election, EventLogStore store) {
        this.election = election;
        this.store = store;
    }

    /** Records {@code election}'s events in {@code store}'s log until the returned registration is closed. */
    public static Registration attach(Election election, EventLogStore store) {
        Objects.requireNonNull(election, "election");
        Objects.requireNonNull(store, "store");
        return election.addListener(new ClusterEventRecorder(election, store));
    }

    @Override
    public void onEvent(ElectionEvent event) {
        if (degraded && election.problem().isEmpty() && !(event instanceof ElectionEvent.ElectionError)) {
            degraded = false;
            record("cluster_recovered", Map.of());
        }
        if (event instanceof ElectionEvent.ElectionStarted) {
            record("election_started", Map.of());
        } else if (event instanceof ElectionEvent.LeadershipAcquired acquired) {
            record("leader_elected", Map.of("term", Long.toString(acquired.leadership().term())));
        } else if (event instanceof ElectionEvent.LeadershipLost lost) {
            record("leader_lost", Map.of("term", Long.toString(lost.term()), "reason", lost.reason().name()));
        } else if (event instanceof ElectionEvent.MemberJoined joined) {
            record("node_joined", Map.of("node_id", joined.member().id(), "identifier", joined.member().identifier()));
        } else if (event instanceof ElectionEvent.MemberStateChanged changed) {
            record("node_state_changed", Map.of("node_id", changed.member().id(),
                    "from", changed.from().name().toLowerCase(Locale.ROOT),
                    "to", changed.to().name().toLowerCase(Locale.ROOT)));
        } else if (event instanceof ElectionEvent.MemberRemoved removed) {
            record("node_left", Map.of("node_id", removed.nodeId()));
        } else if (event instanceof ElectionEvent.ElectionError error && error.cause() != null && !degraded) {
            degraded = true;
            record("cluster_degraded", Map.of("reason", error.message()));
        }
    }

    private void record(String type, Map<String, String> data) {
        synchronized (this) {
            pending.addLast(new Entry(type, data));
            while (pending.size() > MAX_PENDING) {
                pending.removeFirst();
                if (dropped++ % MAX_PENDING == 0) {
                    log.warn("Event log of group {} unreachable: dropping the oldest unwritten events",
                            election.group());
                }
            }
        }
        flush();
    }

    private void flush() {
        Entry next;
        synchronized (this) {
            if (inFlight || pending.isEmpty()) {
                return;
            }
            inFlight = true;
            next = pending.peekFirst();
        }
        store.appendEvent(election.group(), election.nodeId(), next.type(), next.data())
                .whenComplete((ignored, error) -> {
                    boolean again;
                    synchronized (this) {
                        inFlight = false;
                        if (error == null) {
                            pending.remove(next);
                        }
                        // After a failure, wait for the next event to try again rather than spin on a dead store.
                        again = error == null && !pending.isEmpty();
                    }
                    if (error != null) {
                        log.debug("Could not record {} in the event log of group {}: {}", next.type(),
                                election.group(), error.toString());
                    }
                    if (again) {
                        flush();
                    }
                });
    }
}

package dev.baton.work.internal.cluster;

import dev.baton.work.ListenerRegistration;
import dev.baton.work.WorkClusterException;
import dev.baton.core.time.Scheduler;
import dev.baton.work.internal.route.BusMessage;
import dev.baton.work.internal.route.ListenerCard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the leader what this process listens to: sends its listener card on every change, when a new leader is known
 * and every refresh interval, one request at a time, and completes each registration's {@code routed()} once the
 * leader has recorded a card that includes it. Runs on the cluster's scheduler.
 */
final class ListenerAnnouncer {

    private static final Logger log = LoggerFactory.getLogger(ListenerAnnouncer.class);

    private final String group;
    private final String processId;
    private final LocalListeners listeners;
    private final LeaderClient client;
    private final Scheduler scheduler;
    private final Duration refresh;
    private final BooleanSupplier running;
    private final TreeMap<Long, List<CompletableFuture<Void>>> waiting = new TreeMap<>();
    private Scheduler.Cancellable refreshTimer = Scheduler.Cancellable.NONE;
    private long acknowledged = -1;
    private boolean announcing;
    private boolean again;

    ListenerAnnouncer(String group, String processId, LocalListeners listeners, LeaderClient client,
            Scheduler scheduler, Duration refresh, BooleanSupplier running) {
        this.group = group;
        this.processId = processId;
        this.listeners = listeners;
        this.client = client;
        this.scheduler = scheduler;
        this.refresh = refresh;
        this.running = running;
    }

    /** A registration for a listener that the card of {@code version} includes. Any thread. */
    ListenerRegistration registration(long version, Runnable remove) {
        CompletableFuture<Void> routed = new CompletableFuture<>();
        scheduler.execute(() -> {
            if (version <= acknowledged) {
                routed.complete(null);
            } else {
                waiting.computeIfAbsent(version, v -> new ArrayList<>()).add(routed);
            }
        });
        return new ListenerRegistration() {
            @Override
            public CompletableFuture<Void> routed() {
                return routed;
            }

            @Override
            public void close() {
                remove.run();
            }
        };
    }

    /** Announces now and starts the periodic refresh. */
    void start() {
        announce(true);
        scheduleRefresh();
    }

    /** Stops the refresh; registrations still waiting fail. */
    void close() {
        refreshTimer.cancel();
        for (List<CompletableFuture<Void>> list : waiting.values()) {
            list.forEach(f -> f.completeExceptionally(new WorkClusterException("the work cluster was closed")));
        }
        waiting.clear();
    }

    /**
     * Sends the card, unless the leader already has this version and {@code force} is false (a new leader and the
     * periodic refresh force it).
     */
    void announce(boolean force) {
        if (!running.getAsBoolean()) {
            return;
        }
        if (announcing) {
            again |= force || listeners.version() > acknowledged;
            return;
        }
        ListenerCard card = listeners.card();
        if (!force && card.version() <= acknowledged) {
            return;
        }
        announcing = true;
        client.request(requestId -> new BusMessage.Listeners(group, requestId, processId, card),
                "announce listeners").whenComplete((v, error) -> scheduler.execute(() -> {
                    announcing = false;
                    if (error == null) {
                        acknowledged = Math.max(acknowledged, card.version());
                        var done = waiting.headMap(acknowledged, true);
                        done.values().forEach(list -> list.forEach(f -> f.complete(null)));
                        done.clear();
                    } else {
                        log.debug("could not announce this process's listeners: {}", error.toString());
                    }
                    boolean more = again || listeners.version() > acknowledged;
                    again = false;
                    if (more && error == null) {
                        announce(false);
                    }
                }));
    }

    private void scheduleRefresh() {
        refreshTimer = scheduler.schedule(refresh, () -> {
            if (running.getAsBoolean()) {
                scheduleRefresh(); // first: an exception in this announcement must not end the refresh for good
                announce(true);
            }
        });
    }
}

package dev.baton.worker.sim;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What a simulated worker sends on its own, on its timer thread: a {@code stateReport} every report interval (then
 * the {@link SimulatedWorker.Listener}'s batch), and {@code imageDetection} results for each subscription at the
 * configured rate, in ticks of {@link #TICK}.
 */
final class Emissions {

    /** How often results are sent: a rate of R per second sends R × 50 ms worth per tick. */
    static final Duration TICK = Duration.ofMillis(50);

    private final WorkerProtocol protocol;
    private final Clock clock;
    private final double detectionsPerSecond;
    private final SimulatedWorker.Listener listener;
    private final Supplier<SocketServer> server;
    private final Consumer<String> broadcast;
    private final Map<String, Long> batch = new TreeMap<>();
    private final AtomicLong detectionsSent = new AtomicLong();
    private final AtomicLong sequence = new AtomicLong();
    private double credit;

    Emissions(WorkerProtocol protocol, Clock clock, double detectionsPerSecond, SimulatedWorker.Listener listener,
              Supplier<SocketServer> server, Consumer<String> broadcast) {
        this.protocol = protocol;
        this.clock = clock;
        this.detectionsPerSecond = detectionsPerSecond;
        this.listener = listener;
        this.server = server;
        this.broadcast = broadcast;
    }

    /** The next result for {@code subscription}, stamped now. */
    String detection(ObjectNode subscription) {
        return WorkerJson.detection(subscription, sequence.incrementAndGet(), clock.instant());
    }

    /** A report interval passed: a state report to every backend, then the batch to the listener. */
    void report() {
        try {
            SocketServer s = server.get();
            if (s == null || s.getConnections().isEmpty()) {
                return;
            }
            broadcast.accept(protocol.stateReport());
            Map<String, Long> sent;
            synchronized (batch) {
                sent = new LinkedHashMap<>(batch);
                batch.clear();
            }
            listener.onBatch(sent, protocol.subscriptionCount(), s.getConnections().size());
        } catch (RuntimeException e) {
            // keep the timer alive: a listener's failure must not stop the reports
        }
    }

    /** A tick passed: the results due by the rate, for every subscription. */
    void detect() {
        try {
            SocketServer s = server.get();
            if (s == null || s.getConnections().isEmpty() || !protocol.hasSubscriptions()) {
                credit = 0;
                return;
            }
            credit += detectionsPerSecond * TICK.toMillis() / 1000.0;
            int count = (int) credit;
            credit -= count;
            for (int i = 0; i < count; i++) {
                for (ObjectNode subscription : protocol.payloads()) {
                    broadcast.accept(detection(subscription));
                    detectionsSent.incrementAndGet();
                    synchronized (batch) {
                        batch.merge(subscription.path("subscriptionIdentifier").asText(), 1L, Long::sum);
                    }
                }
            }
        } catch (RuntimeException e) {
            // keep the timer alive
        }
    }

    long detectionsSent() {
        return detectionsSent.get();
    }
}

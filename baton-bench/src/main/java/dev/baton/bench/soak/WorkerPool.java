package dev.baton.bench.soak;

import dev.baton.worker.sim.SimulatedWorker;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The Redis cluster's worker pool: simulated workers on loopback ports, each sending results for its subscriptions at
 * a low rate. Flood (a) replaces the last worker with a flooding one on the same port ({@link
 * SimulatedWorker.Builder#flood(boolean)}: batches of 1,000 results and malformed lines as fast as the leader takes
 * them) and afterwards with a normal one again. A replaced worker starts without subscriptions, as a restarted
 * worker does, so the leader sees it go and come back and moves its items: that churn is part of the flood.
 */
final class WorkerPool implements AutoCloseable {

    private static final double DETECTIONS_PER_SECOND = 0.2;

    private final List<SimulatedWorker> workers = new ArrayList<>();
    private long floodMessages;

    WorkerPool(int size) {
        for (int i = 0; i < size; i++) {
            workers.add(SimulatedWorker.builder().detectionsPerSecond(DETECTIONS_PER_SECOND).start());
        }
    }

    /** The workers' URLs, for {@code --workers}. */
    String urls() {
        return String.join(",", workers.stream().map(w -> w.uri().toString()).toList());
    }

    /** Replaces the last worker with a flooding one on the same port. */
    synchronized void startFlood() throws InterruptedException {
        replaceLast(true);
    }

    /** Replaces the flooding worker with a normal one on the same port. */
    synchronized void stopFlood() throws InterruptedException {
        floodMessages += workers.get(workers.size() - 1).floodSent();
        replaceLast(false);
    }

    /** Flood messages the flooding workers queued in all. */
    synchronized long floodMessages() {
        return floodMessages;
    }

    private void replaceLast(boolean flood) throws InterruptedException {
        int last = workers.size() - 1;
        SimulatedWorker old = workers.get(last);
        int port = old.port();
        old.close();
        // The port was just released; another bind may need a moment (bounded retries).
        for (int attempt = 1; ; attempt++) {
            try {
                workers.set(last, SimulatedWorker.builder().port(port).flood(flood)
                        .detectionsPerSecond(DETECTIONS_PER_SECOND).start());
                return;
            } catch (UncheckedIOException | IllegalStateException e) {
                if (attempt == 50) {
                    throw new IllegalStateException("could not listen on worker port " + port + " again: "
                            + e.getMessage(), e);
                }
                Thread.sleep(100);
            }
        }
    }

    @Override
    public synchronized void close() {
        workers.forEach(SimulatedWorker::close);
    }
}

package dev.baton.work.cluster;

import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import dev.baton.work.internal.worker.FencedCommand;
import dev.baton.work.internal.worker.LeaderTermFence;
import dev.baton.work.internal.worker.WorkerCommand;
import dev.baton.work.worker.WorkerMessage;
import dev.baton.work.internal.worker.WorkerProtocolCodec;
import dev.baton.work.internal.worker.WorkerProtocolException;
import dev.baton.work.worker.WorkerTransport;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Workers of the original protocol in memory, reached through a {@link WorkerTransport}: each keeps the subscriptions
 * it is given, answers every command with a state report, reports every 2 s on the test's scheduler, and can be
 * killed (its connections reset, its subscriptions lost), restarted, told to ignore subscribes, or made to emit a
 * result. It counts every subscribe it receives per item, so a test can tell whether anything was subscribed twice.
 * Like a real worker it refuses a command whose {@code leaderTerm} is older than a newer leader's on a connection
 * still open ({@link LeaderTermFence}), and lists what it refused. Messages can be given a random latency
 * ({@link #latency}).
 */
final class FakeWorkers implements WorkerTransport {

    private final Scheduler scheduler;
    private final WorkerProtocolCodec codec = new WorkerProtocolCodec();
    private final Map<String, Worker> workers = new LinkedHashMap<>();
    private Random latencyRandom;
    private Clock clock;
    private long maxLatencyNanos;

    /** Item -> the cost every worker running it reports in its state reports (none: no cost reported). */
    final Map<String, Double> costs = new HashMap<>();

    FakeWorkers(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /**
     * Makes every message between a worker and a backend take a random time up to {@code max}, each connection's
     * messages still in order each way (default: none, a message arrives after the sender's task).
     */
    void latency(Duration max, Random random, Clock clock) {
        this.maxLatencyNanos = max.toNanos();
        this.latencyRandom = random;
        this.clock = clock;
    }

    private long latencyNanos() {
        return maxLatencyNanos <= 0 ? 0 : (long) (latencyRandom.nextDouble() * maxLatencyNanos);
    }

    /** Adds a running worker at {@code url}. */
    Worker add(String url) {
        Worker worker = new Worker(url);
        workers.put(url, worker);
        worker.scheduleReport();
        return worker;
    }

    Worker get(String url) {
        return workers.get(url);
    }

    List<Worker> all() {
        return List.copyOf(workers.values());
    }

    /** Item -> the workers running it, over every worker. */
    Map<String, List<String>> placements() {
        Map<String, List<String>> placements = new TreeMap<>();
        for (Worker w : workers.values()) {
            for (String item : w.subscriptions.keySet()) {
                placements.computeIfAbsent(item, i -> new ArrayList<>()).add(w.url);
            }
        }
        return placements;
    }

    @Override
    public CompletableFuture<Socket> open(URI uri, Duration timeout, Handler handler) {
        Worker worker = workers.get(uri.toString());
        if (worker == null || !worker.running || worker.cut) {
            return CompletableFuture.failedFuture(new ConnectException("connection refused: " + uri));
        }
        FakeSocket socket = new FakeSocket(worker, handler);
        worker.sockets.add(socket);
        return CompletableFuture.completedFuture(socket);
    }

    final class Worker {
        final String url;
        final Map<String, WorkerCommand.Subscribe> subscriptions = new TreeMap<>();
        final Map<String, Integer> subscribesReceived = new HashMap<>();
        final List<String> received = new ArrayList<>();
        /** Commands refused as a deposed leader's, e.g. {@code "subscribe d1;c1 of term 3, newest 4"}. */
        final List<String> refused = new ArrayList<>();
        final LeaderTermFence<FakeSocket> fence = new LeaderTermFence<>();
        final List<FakeSocket> sockets = new ArrayList<>();
        boolean running = true;
        boolean cut;
        boolean ignoreSubscribes;
        boolean silent;
        double cpu = 10;
        double memory = 20;

        Worker(String url) {
            this.url = url;
        }

        Set<String> items() {
            return Set.copyOf(subscriptions.keySet());
        }

        /** The process dies: connections reset, subscriptions lost, connections refused until restarted. */
        void kill() {
            running = false;
            subscriptions.clear();
            fence.clear();
            for (FakeSocket s : List.copyOf(sockets)) {
                s.open = false;
                s.handler.onError(new IOException("connection reset"));
            }
            sockets.clear();
        }

        void restart() {
            running = true;
        }

        /** The network to it fails: connections reset and refused, while it goes on running its items. */
        void cutOff() {
            cut = true;
            for (FakeSocket s : List.copyOf(sockets)) {
                s.open = false;
                fence.closed(s);
                s.handler.onError(new IOException("connection reset"));
            }
            sockets.clear();
        }

        /** The network is back: the next connection attempt succeeds. */
        void reconnectable() {
            cut = false;
        }

        /** Tells every connected backend it is about to stop ({@code draining}). */
        void announceDrain(String reason) {
            String json = codec.encode(new WorkerMessage.Draining(reason));
            for (FakeSocket socket : List.copyOf(sockets)) {
                socket.toBackend(json);
            }
        }

        /** Sends a detection for {@code item} on every open connection if this worker runs it. */
        boolean detect(String item, long n) {
            if (!subscriptions.containsKey(item)) {
                return false;
            }
            WorkerCommand.Subscribe s = subscriptions.get(item);
            String json = codec.encode(new WorkerMessage.ImageDetection(item, "2026-01-01T00:00:00Z",
                    new WorkerMessage.Detection("Model", "Brand", 2020, "sedan", "PLATE-" + n, "eu"), s.modelId(),
                    s.modelName()));
            for (FakeSocket socket : List.copyOf(sockets)) {
                socket.toBackend(json);
            }
            return true;
        }

        /** Sends {@code messages} results for its items (every tenth a malformed line) at once, as a flooding worker. */
        void flood(int messages) {
            List<String> items = List.copyOf(subscriptions.keySet());
            for (int n = 1; n <= messages; n++) {
                if (n % 10 == 0 || items.isEmpty()) {
                    for (FakeSocket socket : List.copyOf(sockets)) {
                        socket.toBackend("{\"type\":\"imageDetection\",");
                    }
                } else {
                    detect(items.get(n % items.size()), n);
                }
            }
        }

        int subscribes(String item) {
            return subscribesReceived.getOrDefault(item, 0);
        }

        void report(FakeSocket socket) {
            List<WorkerMessage.CameraConnection> connections = new ArrayList<>();
            subscriptions.values().forEach(s -> connections.add(new WorkerMessage.CameraConnection(
                    s.subscriptionIdentifier(), s.modelId(), s.modelName(), true, s.cropX1(), s.cropY1(),
                    costs.get(s.subscriptionIdentifier()))));
            socket.toBackend(codec.encode(new WorkerMessage.StateReport(cpu, memory, null, null, connections)));
        }

        void scheduleReport() {
            scheduler.schedule(Duration.ofSeconds(2), () -> {
                if (running && !silent) {
                    for (FakeSocket s : List.copyOf(sockets)) {
                        report(s);
                    }
                }
                scheduleReport();
            });
        }

        void handle(FakeSocket socket, String text) {
            if (silent) {
                return;
            }
            FencedCommand fenced;
            try {
                fenced = codec.decodeFencedCommand(text);
            } catch (WorkerProtocolException e) {
                throw new AssertionError("the backend sent an invalid command: " + text, e);
            }
            WorkerCommand command = fenced.command();
            String about = command instanceof WorkerCommand.Subscribe s ? " " + s.subscriptionIdentifier()
                    : command instanceof WorkerCommand.Unsubscribe u ? " " + u.subscriptionIdentifier() : "";
            received.add(command.type() + about);
            if (fence.admit(socket, fenced) == LeaderTermFence.Verdict.STALE) {
                refused.add(command.type() + about + " of term " + fenced.leaderTerm() + ", newest "
                        + fence.newestTerm());
                return;
            }
            if (command instanceof WorkerCommand.Subscribe s) {
                subscribesReceived.merge(s.subscriptionIdentifier(), 1, Integer::sum);
                if (ignoreSubscribes) {
                    return;
                }
                subscriptions.put(s.subscriptionIdentifier(), s);
            } else if (command instanceof WorkerCommand.Unsubscribe u) {
                subscriptions.remove(u.subscriptionIdentifier());
            } else if (!(command instanceof WorkerCommand.RequestState)) {
                return;
            }
            report(socket);
        }
    }

    final class FakeSocket implements Socket {
        final Worker worker;
        final Handler handler;
        boolean open = true;
        private long toWorkerAt;
        private long toBackendAt;
        private final java.util.ArrayDeque<String> backlog = new java.util.ArrayDeque<>();
        private long demand;
        int maxBacklog;

        FakeSocket(Worker worker, Handler handler) {
            this.worker = worker;
            this.handler = handler;
        }

        @Override
        public void send(String text) {
            if (open && worker.running) {
                // Commands arrive like network traffic: after the sender's task, and after any latency.
                toWorkerAt = later(toWorkerAt, () -> {
                    if (open && worker.running) {
                        worker.handle(this, text);
                    }
                });
            }
        }

        /** A message from the worker to the backend on this connection. */
        void toBackend(String text) {
            if (maxLatencyNanos <= 0) {
                arrive(text);
                return;
            }
            toBackendAt = later(toBackendAt, () -> {
                if (open) {
                    arrive(text);
                }
            });
        }

        /** Handed over against the backend's demand, like the JDK client; the rest waits here, as in TCP. */
        private void arrive(String text) {
            backlog.add(text);
            pump();
        }

        private void pump() {
            while (demand > 0 && !backlog.isEmpty() && open) {
                demand--;
                maxBacklog = Math.max(maxBacklog, backlog.size());
                handler.onText(backlog.poll());
            }
        }

        @Override
        public void request(long n) {
            demand += n;
            pump();
        }

        /** Runs {@code delivery} after a random latency, not before the previous one; returns when it runs. */
        private long later(long previous, Runnable delivery) {
            if (maxLatencyNanos <= 0) {
                scheduler.execute(delivery);
                return previous;
            }
            long now = clock.nanoTime();
            long at = Math.max(now + latencyNanos(), previous);
            scheduler.schedule(Duration.ofNanos(at - now), delivery);
            return at;
        }

        @Override
        public void close() {
            open = false;
            worker.sockets.remove(this);
            worker.fence.closed(this);
        }

        @Override
        public void abort() {
            close();
        }
    }
}

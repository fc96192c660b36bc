package dev.baton.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.time.Clock;
import dev.baton.worker.sim.SimulatedWorker;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code baton worker}: runs the testkit's {@link SimulatedWorker}, a worker of seed 001 that speaks the worker side of
 * the JSON-over-WebSocket protocol without running a model, so a person can try the work cluster by hand. Prints one
 * JSON line when it listens, one per command received ({@code command}), one per report interval with the detection
 * results sent ({@code batch}), and one when it stops. Runs until SIGTERM or SIGINT; then, unless
 * {@code --drain-timeout 0}, it drains first (announces {@code draining} and waits, at most the timeout, until the
 * leader has moved everything it ran to other workers), and exits 0.
 */
@Command(
        name = "worker",
        mixinStandardHelpOptions = true,
        header = "Runs a simulated seed-001 worker (WebSocket server) until SIGTERM/SIGINT.",
        description = "Runs a simulated worker: a WebSocket server speaking the worker side of seed 001's protocol. "
                + "It keeps the subscriptions it is sent, sends a stateReport every report interval and "
                + "imageDetection results for each subscription. Prints one JSON line per command received and per "
                + "batch of results sent.")
final class WorkerCommand implements Callable<Integer> {

    @Option(names = "--port", paramLabel = "N", required = true,
            description = "The port to listen on (0 picks a free one).")
    int port;

    @Option(names = "--host", paramLabel = "H", defaultValue = "127.0.0.1",
            description = "The address to listen on (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--detections-per-second", paramLabel = "R", defaultValue = "1",
            description = "Detection results per second for each subscription, 0 to 10000 (default: ${DEFAULT-VALUE}).")
    double detectionsPerSecond;

    @Option(names = "--report-interval", paramLabel = "DUR", defaultValue = "2s", converter = DurationConverter.class,
            description = "How often a stateReport is sent (default: ${DEFAULT-VALUE}, the seed's).")
    Duration reportInterval;

    @Option(names = "--drain-timeout", paramLabel = "DUR", defaultValue = "30s", converter = DurationConverter.class,
            description = "On SIGTERM/SIGINT, announce a drain to the leader and wait at most this long until it has "
                    + "moved every item this worker runs to other workers, then exit; 0 exits at once "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration drainTimeout;

    @Option(names = "--flood",
            description = "Test mode: floods every connected backend with results and malformed lines as fast as "
                    + "the connection takes them (a stateReport every 1,000 messages), to check that a leader holds "
                    + "it back and disconnects it as flooding. Never against a production leader.")
    boolean flood;

    @Option(names = "--chaos-hooks", hidden = true,
            description = "For the fault harness: one worker-command line per subscribe and unsubscribe judged, with "
                    + "the item, the leader term, whether it was carried out and the real monotonic time.")
    boolean chaosHooks;

    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Override
    public Integer call() {
        if (port < 0 || port > 65535) {
            throw CliError.usage("--port must be in 0..65535, was " + port);
        }
        if (!(detectionsPerSecond >= 0) || detectionsPerSecond > 10_000) {
            throw CliError.usage("--detections-per-second must be in 0..10000, was " + detectionsPerSecond);
        }
        if (reportInterval.toMillis() < 1) {
            throw CliError.usage("--report-interval must be at least 1ms, was " + reportInterval);
        }
        if (drainTimeout.isNegative()) {
            throw CliError.usage("--drain-timeout must not be negative, was " + drainTimeout);
        }
        WorkerLines lines = new WorkerLines(new JsonLines(MAPPER, System.out), Clock.system());
        SimulatedWorker worker;
        try {
            worker = SimulatedWorker.builder().host(host).port(port).detectionsPerSecond(detectionsPerSecond)
                    .reportInterval(reportInterval).flood(flood).listener(new Printer(lines, chaosHooks)).start();
        } catch (UncheckedIOException | IllegalStateException e) {
            throw CliError.usage("--port " + port + ": " + e.getMessage(), e);
        }
        lines.worker = worker.uri().toString();
        lines.write(lines.start("worker-started").put("url", worker.uri().toString()).put("port", worker.port())
                .put("pid", ProcessHandle.current().pid()).put("detectionsPerSecond", detectionsPerSecond)
                .put("reportIntervalMs", reportInterval.toMillis()).put("flood", flood)
                .put("drainTimeoutMs", drainTimeout.toMillis()));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            drain(worker, lines);
            worker.close();
            lines.write(lines.start("worker-stopped").put("detectionsSent", worker.detectionsSent()));
            Runtime.getRuntime().halt(BatonCli.EXIT_OK);
        }, "baton-worker-shutdown"));
        try {
            new CountDownLatch(1).await(); // until a signal's shutdown hook halts the JVM
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return BatonCli.EXIT_OK;
    }

    /** On a stop signal: announce the drain and wait (bounded) until the leader moved everything elsewhere. */
    private void drain(SimulatedWorker worker, WorkerLines lines) {
        if (drainTimeout.isZero() || worker.connections() == 0) {
            return;
        }
        lines.write(lines.start("worker-draining").put("subscriptions", worker.subscriptions().size())
                .put("timeoutMs", drainTimeout.toMillis()));
        long start = System.nanoTime();
        boolean drained;
        try {
            drained = worker.drain("the worker is stopping (signal)", drainTimeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            drained = false;
        }
        lines.write(lines.start("worker-drained").put("drained", drained)
                .put("subscriptionsLeft", worker.subscriptions().size())
                .put("tookMs", (System.nanoTime() - start) / 1_000_000));
    }

    /**
     * The worker's lines in the node's convention ({@link EventJson}): {@code event} first, then {@code worker} (this
     * worker's URL, the way node lines name a worker), the event's fields, and {@code ts} last, UTC with exactly
     * three fractional digits.
     */
    static final class WorkerLines {
        private final JsonLines out;
        private final Clock clock;
        /** This worker's URL, once it listens. */
        volatile String worker;

        WorkerLines(JsonLines out, Clock clock) {
            this.out = out;
            this.clock = clock;
        }

        /** A new line: {@code event}, then {@code worker} when known; the caller adds the fields. */
        ObjectNode start(String event) {
            ObjectNode line = MAPPER.createObjectNode().put("event", event);
            if (worker != null) {
                line.put("worker", worker);
            }
            return line;
        }

        /** Stamps {@code ts} last and prints the line. */
        void write(ObjectNode line) {
            line.remove("ts");
            line.put("ts", EventJson.timestamp(clock.instant()));
            out.write(line);
        }
    }

    /**
     * One JSON line per command and per batch; with {@code --chaos-hooks} also one {@code worker-command} line per
     * subscribe and unsubscribe judged, stamped with {@link System#nanoTime()} while the worker judges it, so the
     * harness's history says which worker ran which item from when to when, on the clock every process of the machine
     * shares.
     */
    private static final class Printer implements SimulatedWorker.Listener {
        private final WorkerLines lines;
        private final boolean chaosHooks;

        Printer(WorkerLines lines, boolean chaosHooks) {
            this.lines = lines;
            this.chaosHooks = chaosHooks;
        }

        @Override
        public void onJudged(String json, boolean carriedOut) {
            long mono = System.nanoTime();
            if (!chaosHooks) {
                return;
            }
            com.fasterxml.jackson.databind.JsonNode message;
            try {
                message = MAPPER.readTree(json);
            } catch (java.io.IOException e) {
                return;
            }
            String type = message.path("type").asText("");
            if (!type.equals("subscribe") && !type.equals("unsubscribe")) {
                return;
            }
            ObjectNode line = lines.start("worker-command")
                    .put("item", message.path("payload").path("subscriptionIdentifier").asText(""))
                    .put("action", type.equals("subscribe") ? "start" : "stop")
                    .put("leaderTerm", message.path("leaderTerm").asLong(0))
                    .put("carriedOut", carriedOut)
                    .put("mono", mono);
            lines.write(line);
        }

        @Override
        public void onCommand(String json) {
            ObjectNode line = lines.start("command");
            try {
                line.set("message", MAPPER.readTree(json));
            } catch (java.io.IOException e) {
                line.put("text", json);
            }
            lines.write(line);
        }

        @Override
        public void onBatch(Map<String, Long> detections, int subscriptions, int connections) {
            ObjectNode line = lines.start("batch").put("subscriptions", subscriptions).put("connections", connections)
                    .put("detections", detections.values().stream().mapToLong(Long::longValue).sum());
            ObjectNode per = line.putObject("perSubscription");
            detections.forEach(per::put);
            lines.write(line);
        }
    }
}

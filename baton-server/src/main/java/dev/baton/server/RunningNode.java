package dev.baton.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.Election;
import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.NodeInfo;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.FencedMapStore;
import dev.baton.core.store.MessageBus;
import dev.baton.core.time.Clock;
import dev.baton.micrometer.MicrometerElectionMetrics;
import dev.baton.server.internal.api.NodeApi;
import dev.baton.work.source.DesiredStateSource;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running {@code baton node}: an election on its {@link NodeBackend} (a store, or the serverless peer protocol),
 * its events printed as JSON lines, the optional fenced-write loop, the optional work cluster
 * ({@code --workers}, store backends), the optional HTTP API with its metrics, and the shutdown that a signal
 * triggers.
 *
 * <p>Start order: the backend's own port (peer) binds when the election is built and the HTTP API binds its port
 * before the election starts, so a port that is taken ends the node with a usage error before it ever contends.
 * Shutdown order matters and is the reason this class exists: on SIGTERM or SIGINT the HTTP API stops first (requests
 * in flight finish, no new write is accepted), then the fenced-write loop stops (no write after the release), then
 * the work cluster closes (a leader stops acting and closes its worker connections before it releases, so two nodes
 * never drive the workers at once), then the election closes (a leader prints {@code leadership-lost} with reason {@code RELEASED} and releases its lease, or
 * on peer hands over to a successor, so another node takes over at once), then every queued event line is printed,
 * then the backend closes (the store connection, or the peer transport). The JVM would report a signal death (exit
 * 143 or 130) even after a clean shutdown; a node that released cleanly has done what was asked, so the hook ends the
 * process with status 0 itself.
 *
 * <p>With the hidden {@code --chaos-hooks} (the fault harness), election events are stamped on the dispatcher's
 * thread ({@link ChaosStamps}), every other line when written, each deadline the election gives its leadership is
 * printed as a {@code valid-until} line ({@link ChaosValidity}), and a daemon thread reads commands from stdin
 * ({@link ChaosCommands}).
 */
final class RunningNode {

    private static final Logger log = LoggerFactory.getLogger(RunningNode.class);

    private final NodeSettings settings;
    private final NodeBackend backend;
    /** The node's clock: the system's, or with the hidden {@code --clock-rate} one that runs fast or slow. */
    private final Clock clock;
    private final EventJson json;
    private final JsonLines lines;
    private final ExecutorService printer;
    private final Election election;
    /** The main election's lines: they name its group when the node runs several ({@code --chaos-groups}). */
    private final EventJson electionJson;
    /** With the hidden {@code --chaos-groups}: the node's other elections, sharing the main one's store session. */
    private final Map<String, Election> moreGroups = new LinkedHashMap<>();
    private final FencedWriter fencedWriter;
    private final NodeWorkCluster work;
    /** {@code --chaos-hooks} with {@code --workers} on a store backend: the {@code pause-after-fenced-write} switch. */
    private final WorkWritePause workPause;
    /** The work cluster's replicated maps on a serverless backend with {@code --workers}; else null. */
    private final ServerlessWorkStore replicated;
    private final NodeApi api;
    private final LeaderWaitLines waitLines;
    private final CountDownLatch stopped = new CountDownLatch(1);

    private RunningNode(NodeSettings settings, NodeBackend backend, PrintStream out) {
        this.settings = settings;
        this.backend = backend;
        // The items query runs once now, so that a bad one ends the node before it joins the group.
        DesiredStateSource itemsSource = settings.work().flatMap(WorkSettings::items).map(ItemsQuery::open)
                .orElse(DesiredStateSource.NONE);
        this.clock = RateClock.of(settings.chaos().clockRate());
        this.json = new EventJson(settings.nodeId());
        List<String> groups = settings.chaos().groupNames(settings.group());
        this.electionJson = groups.size() > 1 ? json.inGroup(settings.group()) : json;
        this.lines = new JsonLines(new ObjectMapper(), out, settings.chaos().hooks());
        this.printer = Executors.newSingleThreadExecutor(runnable -> {
            Thread t = new Thread(runnable, "baton-node-output");
            t.setDaemon(true);
            return t;
        });
        NodeInfo self = NodeInfo.of(settings.nodeId(), settings.identifier());
        PrometheusMeterRegistry registry = null;
        MicrometerElectionMetrics metrics = null;
        if (settings.http().isPresent()) {
            self = self.withApiAddress(settings.http().get().advertiseUrl());
            registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            new JvmMemoryMetrics().bindTo(registry);
            new JvmThreadMetrics().bindTo(registry);
            new ProcessorMetrics().bindTo(registry);
            new UptimeMetrics().bindTo(registry);
            metrics = new MicrometerElectionMetrics(registry, Tags.of("group", settings.group()), clock);
            backend.bindMetrics(registry, Tags.of("group", settings.group()));
        }
        // On a serverless backend the work cluster's maps are replicated by the nodes: the node advertises where.
        this.replicated = settings.work().isPresent() && backend.store().isEmpty()
                ? ServerlessWorkStore.open(settings.group(), settings.backend()).orElseThrow(() -> CliError.usage(
                        settings.work().get().origin() + " needs a store every node shares; " + backend.describe()
                                + " has none"))
                : null;
        try {
            if (replicated != null) {
                self = replicated.advertise(self);
            }
            ElectionMetrics electionMetrics = metrics != null ? metrics : ElectionMetrics.NONE;
            if (settings.chaos().hooks()) {
                electionMetrics = new ChaosValidity(electionMetrics, clock, electionJson, this::printLater);
            }
            this.election = backend.election(self, electionMetrics, clock);
            for (String group : groups.subList(1, groups.size())) {
                ElectionMetrics groupMetrics = settings.chaos().hooks()
                        ? new ChaosValidity(ElectionMetrics.NONE, clock, json.inGroup(group), this::printLater)
                        : ElectionMetrics.NONE;
                moreGroups.put(group, backend.election(group, self, groupMetrics, clock));
            }
        } catch (RuntimeException e) {
            moreGroups.values().forEach(Election::close);
            if (replicated != null) {
                replicated.close();
            }
            throw e;
        }
        Optional<FencedMapStore> workMaps = replicated != null ? Optional.of(replicated.attach(election))
                : backend.store().map(CoordinationStore::maps);
        Optional<MessageBus> workBus = replicated != null ? workMaps.map(MessageBus.class::cast)
                : backend.store().map(CoordinationStore::bus);
        this.workPause = settings.chaos().hooks() && settings.work().isPresent() && replicated == null
                ? new WorkWritePause(workMaps.orElseThrow(), json, lines, clock) : null;
        this.work = settings.work().map(w -> new NodeWorkCluster(w, itemsSource, election,
                workPause != null ? workPause : workMaps.orElseThrow(), workBus.orElseThrow(), clock, json, lines))
                .orElse(null);
        this.api = settings.http().isEmpty() ? null : NodeApi.create(settings.http().get(), election, backend.store(),
                work != null ? workMaps : backend.store().map(CoordinationStore::maps), backend.describe(), registry,
                metrics, replicated != null ? replicated.callTimeout(backend.callTimeout()) : backend.callTimeout(),
                clock,
                Optional.ofNullable(work).map(NodeWorkCluster::cluster));
        this.fencedWriter = settings.fencedWrites()
                .map(interval -> FencedWriter.create(election, backend.fencedRegister(FencedWriter.REGISTER), interval,
                        backend.callTimeout(), clock, electionJson, lines, settings.chaos()))
                .orElse(null);
        this.waitLines = new LeaderWaitLines(election, backend.store(), backend.callTimeout(), clock, json, lines,
                LeaderWaitLines.Pacing.of(settings.profile()));
    }

    /**
     * Runs a node on {@code backend} (which it takes over and closes) and returns only if the calling thread is
     * interrupted; normally the process ends from the shutdown hook, with status 0.
     */
    static void runUntilSignalled(NodeSettings settings, NodeBackend backend, PrintStream out) {
        RunningNode node;
        try {
            node = new RunningNode(settings, backend, out);
        } catch (RuntimeException e) {
            backend.close();
            throw e;
        }
        node.run();
    }

    /**
     * One warning line per port that accepts anyone who can reach it: the API without a token (writes included), the
     * peer port without a secret. On loopback that is every local process; elsewhere the user opted in by a flag.
     */
    private void warnIfOpen() {
        settings.http().filter(http -> http.apiToken().isEmpty()).ifPresent(http -> log.warn(
                "The HTTP API on {}:{} accepts writes without a token from anyone who can reach it (set "
                        + "--api-token-file to require one)", http.host(), http.port()));
        Optional<String> peerPort = Optional.empty();
        if (settings.backend() instanceof BackendSpec.Peer peer && peer.secret().isEmpty()) {
            peerPort = Optional.of(peer.listen().format());
        } else if (settings.backend() instanceof BackendSpec.Bully bully && bully.secret().isEmpty()) {
            peerPort = Optional.of(bully.listen().format());
        }
        peerPort.ifPresent(address -> log.warn("The peer port {} accepts messages without a secret from anyone who"
                + " can reach it (set --secret-file to require one)", address));
        if (peerPort.isPresent() && replicated != null) {
            log.warn("The work items' replica port {} accepts writes without a secret from anyone who can reach it"
                    + " (set --secret-file to require one)", replicated.address().format());
        }
    }

    private void run() {
        if (api != null) {
            try {
                api.start();
            } catch (NodeApi.CannotListen e) {
                if (work != null) {
                    work.close();
                }
                election.close();
                if (replicated != null) {
                    replicated.close();
                }
                backend.close();
                throw CliError.usage("--http: " + e.getMessage(), e);
            }
        }
        warnIfOpen();
        ErrorLines errors = new ErrorLines(clock, ErrorLines.INTERVAL);
        printEvents(election, electionJson, errors, event -> true);
        // The other groups print what the harness checks (leadership and errors), not each group's membership news.
        moreGroups.forEach((group, more) -> printEvents(more, json.inGroup(group), errors,
                event -> event instanceof ElectionEvent.LeadershipAcquired
                        || event instanceof ElectionEvent.LeadershipLost
                        || event instanceof ElectionEvent.ElectionError));
        lines.write(json.nodeStarted(settings, backend.describe(), ProcessHandle.current().pid(), clock.instant()));
        if (replicated != null) {
            replicated.holdingState().thenAccept(term -> printLater(json.workReplicaReady(term, clock.instant())));
        }
        if (settings.chaos().hooks()) {
            new ChaosCommands(backend, Optional.ofNullable(workPause), json, lines, clock).startReading(System.in);
        }
        log.info("Node {} ({}) joining group {} on {} with {}", settings.nodeId(), settings.identifier(),
                settings.group(), backend.describe(), settings.backend());
        Runtime.getRuntime().addShutdownHook(new Thread(this::shutdownAndHalt, "baton-node-shutdown"));
        if (work != null) {
            work.start();
        }
        election.start();
        moreGroups.values().forEach(Election::start);
        waitLines.start();
        if (fencedWriter != null) {
            fencedWriter.start();
        }
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Prints the lines of {@code source}'s events that {@code printed} admits, as {@code schema} writes them. */
    private void printEvents(Election source, EventJson schema, ErrorLines errors, Predicate<ElectionEvent> printed) {
        if (settings.chaos().hooks()) {
            ChaosStamps stamps = new ChaosStamps(settings.backend(), clock);
            // Runs on the dispatcher's thread as the event is emitted, so mono is the event's moment; printing stays
            // on the printer thread, in the same order.
            source.addListener(event -> {
                long mono = System.nanoTime();
                ObjectNode line = printed.test(event) ? eventLine(event, schema, errors) : null;
                if (line == null) {
                    return;
                }
                printLater(stamps.stamp(event, line, mono));
            }, Runnable::run);
        } else {
            source.addListener(event -> {
                ObjectNode line = printed.test(event) ? eventLine(event, schema, errors) : null;
                if (line != null) {
                    lines.write(line);
                }
            }, printer);
        }
    }

    /** Prints {@code line} on the printer thread, after the lines handed over before it; dropped after shutdown. */
    private void printLater(ObjectNode line) {
        try {
            printer.execute(() -> lines.write(line));
        } catch (RejectedExecutionException shuttingDown) {
            log.debug("Not printed after shutdown: {}", line);
        }
    }

    /** The line for {@code event}, or null for an error of a kind printed less than an interval ago. */
    private ObjectNode eventLine(ElectionEvent event, EventJson schema, ErrorLines errors) {
        if (!(event instanceof ElectionEvent.ElectionError error)) {
            return schema.event(event);
        }
        OptionalInt leftOut = errors.admit(error.message());
        if (leftOut.isEmpty()) {
            return null;
        }
        ObjectNode line = schema.event(event);
        if (leftOut.getAsInt() > 0) {
            line.put("similarLeftOut", leftOut.getAsInt());
        }
        return line;
    }

    private void shutdownAndHalt() {
        int status = BatonCli.EXIT_OK;
        try {
            log.info("Signal received: node {} leaving group {}", settings.nodeId(), settings.group());
            if (api != null) {
                api.close();
            }
            waitLines.close();
            if (fencedWriter != null) {
                fencedWriter.close();
            }
            if (work != null) {
                work.close();
            }
            moreGroups.values().forEach(Election::close);
            election.close();
            printer.shutdown();
            if (!printer.awaitTermination(2, TimeUnit.SECONDS)) {
                log.warn("Some event lines were not printed before exit");
            }
            if (replicated != null) {
                replicated.close();
            }
            backend.close();
            lines.write(json.nodeStopped(clock.instant()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            status = BatonCli.EXIT_FAILURE;
        } catch (RuntimeException e) {
            log.error("Node {} did not shut down cleanly", settings.nodeId(), e);
            status = BatonCli.EXIT_FAILURE;
        } finally {
            stopped.countDown();
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(status);
        }
    }
}

package dev.baton.server.internal.api;

import dev.baton.core.Election;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.FencedMapStore;
import dev.baton.core.time.Clock;
import dev.baton.http.LeaderGate;
import dev.baton.http.LeaderOnly;
import dev.baton.micrometer.MicrometerElectionMetrics;
import dev.baton.work.WorkCluster;
import dev.baton.work.WorkItemJson;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.staticfiles.Location;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's HTTP API on Javalin: the cluster endpoints, the work items, {@code /metrics}, and the dashboard's static
 * files at {@code /} (from the class path folder {@value #DASHBOARD}). See {@code docs/http.md} for every endpoint.
 *
 * <p>Life cycle: {@link #create} before the election starts (so the node's local event log and the metrics see its
 * first events), {@link #start()} to listen, {@link #close()} to stop serving. Not part of Baton's published API.
 *
 * <p>Order of the before-handlers: {@link RequestGuards} on every request (no method override, a path that is valid
 * UTF-8), then on a write the bearer token (an unauthenticated caller learns nothing, not even who leads), then the
 * leader gate, then the endpoint.
 *
 * <p>Capacity: at most {@link #MAX_THREADS} server threads, at most {@link RequestBodies#MAX_BODIES_IN_FLIGHT} of
 * them reading request bodies, each body at least {@link #MIN_BODY_BYTES_PER_SECOND} bytes per second and no read
 * waiting longer than {@link #IO_IDLE_TIMEOUT}; a request with a body holds no thread until its first bytes arrive.
 */
public final class NodeApi implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(NodeApi.class);

    /** The largest request body accepted, 1 MiB; larger ones are answered 413. */
    public static final int MAX_BODY_BYTES = 1 << 20;
    /**
     * The most server threads the API uses, {@value}: Jetty's acceptor and selector threads included. Reads of the
     * node's own state need few; the request bodies being read at once are bounded separately (see
     * {@link RequestBodies#MAX_BODIES_IN_FLIGHT}), so slow clients cannot take every thread.
     */
    public static final int MAX_THREADS = 32;
    /** A request body that arrives slower than this, in bytes per second, is answered 408. */
    public static final int MIN_BODY_BYTES_PER_SECOND = 1024;
    /** The longest a blocking read or write of a request may wait for the client. */
    public static final Duration IO_IDLE_TIMEOUT = Duration.ofSeconds(10);
    /** The fenced map that holds the work items, in the election's group. */
    public static final String WORK_ITEMS_MAP = "work_items";
    /** Where the dashboard's files live on the class path; {@code index.html} is served at {@code /}. */
    public static final String DASHBOARD = "/dev/baton/server/dashboard";

    /**
     * How the API is served.
     *
     * @param host         the address to listen on, e.g. {@code 127.0.0.1} or {@code 0.0.0.0}
     * @param port         the port to listen on, 1-65535
     * @param advertiseUrl the base URL other nodes and clients reach this node at (stored as the node's API
     *                     address, shown as {@code X-Leader-Url})
     * @param mode         what a follower answers to a write
     * @param apiToken     the bearer token writes need, if any; never printed
     */
    public record Settings(String host, int port, String advertiseUrl, LeaderGate.Mode mode,
            Optional<String> apiToken) {

        public Settings {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(advertiseUrl, "advertiseUrl");
            Objects.requireNonNull(mode, "mode");
            Objects.requireNonNull(apiToken, "apiToken");
        }

        @Override
        public String toString() {
            return "Settings[host=" + host + ", port=" + port + ", advertiseUrl=" + advertiseUrl + ", mode=" + mode
                    + ", apiToken=" + (apiToken.isPresent() ? "(set)" : "(none)") + "]";
        }
    }

    /** What the status and health endpoints report about this node besides the election's view. */
    record Facts(String backend, String advertiseUrl, String version, long startedNanos,
            Optional<MicrometerElectionMetrics> metrics) {
    }

    /** The listen address could not be bound: in use, not local, or not resolvable. */
    public static final class CannotListen extends RuntimeException {
        private static final long serialVersionUID = 1L;

        CannotListen(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final Settings settings;
    private final Javalin app;

    private NodeApi(Settings settings, Javalin app) {
        this.settings = settings;
        this.app = app;
    }

    /**
     * Builds the API for {@code election} on {@code store}; call before {@code election.start()}.
     *
     * @param registry     where {@code /metrics} reads from and HTTP request metrics go
     * @param metrics      the election's meters, already passed to its builder; bound to the election here
     * @param storeTimeout the bound on every store call a request makes
     */
    public static NodeApi create(Settings settings, Election election, CoordinationStore store,
            PrometheusMeterRegistry registry, MicrometerElectionMetrics metrics, Duration storeTimeout,
            Clock clock) {
        return create(settings, election, Optional.of(store), Optional.of(store.maps()), store.describe(), registry,
                metrics, storeTimeout, clock, Optional.empty());
    }

    /**
     * Builds the API for {@code election}; call before {@code election.start()}. Without a store (the serverless
     * {@code quorum} and {@code bully} backends) {@code /cluster/events} answers from this node's own event log and
     * the work items answer {@code 501 no_shared_store} unless the node runs a work cluster (whose members then
     * replicate them), since otherwise there is nowhere to keep them that a new leader would find. With a work cluster, {@code GET /work/state} answers its state, items need a {@code modelUrl}, and every
     * accepted item write asks the cluster's leader to reconcile at once; without one, {@code GET /work/state}
     * answers {@code 404 no_work_cluster}.
     *
     * @param store       the shared store, if the backend has one
     * @param workItems   where the work items are kept: the store's fenced maps, or on a serverless backend with a
     *                    work cluster the maps its members replicate; empty answers {@code 501 no_shared_store}
     * @param backend     the backend as {@code /cluster/status} shows it, without secrets
     * @param registry    where {@code /metrics} reads from and HTTP request metrics go
     * @param metrics     the election's meters, already passed to its builder; bound to the election here
     * @param callTimeout the bound on every backend call a request makes
     * @param work        the node's work cluster ({@code --workers}), if it runs one; it needs the store
     */
    public static NodeApi create(Settings settings, Election election, Optional<CoordinationStore> store,
            Optional<FencedMapStore> workItems, String backend, PrometheusMeterRegistry registry, MicrometerElectionMetrics metrics, Duration callTimeout,
            Clock clock, Optional<WorkCluster> work) {
        LocalEventLog localEvents = LocalEventLog.recording(election, clock);
        metrics.bindTo(election);
        LeaderGate gate = new LeaderGate(election, settings.mode());
        StoreCalls calls = new StoreCalls(callTimeout, clock);
        Facts facts = new Facts(backend, settings.advertiseUrl(), BatonVersion.current(), clock.nanoTime(),
                Optional.of(metrics));
        ClusterRoutes cluster = new ClusterRoutes(election, store.map(CoordinationStore::events), localEvents, gate,
                calls, clock, facts);

        Javalin app = Javalin.create(config -> {
            config.showJavalinBanner = false;
            config.startupWatcherEnabled = false;
            config.http.prefer405over404 = true;
            config.http.maxRequestSize = MAX_BODY_BYTES;
            config.http.defaultContentType = ApiJson.CONTENT_TYPE;
            config.jetty.threadPool = threadPool();
            config.jetty.modifyHttpConfiguration(http -> {
                http.setIdleTimeout(IO_IDLE_TIMEOUT.toMillis());
                http.setMinRequestDataRate(MIN_BODY_BYTES_PER_SECOND);
                // the default, made explicit: a request with a body holds no thread until its first bytes arrive
                http.setDelayDispatchUntilContent(true);
            });
            config.staticFiles.add(files -> {
                files.hostedPath = "/";
                files.directory = DASHBOARD;
                files.location = Location.CLASSPATH;
                // Without these, Jetty names no charset ("text/html;charset=null") for the dashboard's files.
                files.mimeTypes.add("text/html; charset=utf-8", "html");
                files.mimeTypes.add("text/javascript; charset=utf-8", "js");
                files.mimeTypes.add("text/css; charset=utf-8", "css");
            });
            config.requestLogger.http(new HttpMetrics(registry));
            ApiErrors.configure(config);
        });
        ApiErrors.install(app);
        app.before(RequestGuards::check);
        settings.apiToken().map(BearerAuth::new).ifPresent(auth -> {
            app.before("/cluster/leader/release", auth);
            app.before("/work/regenerate", auth);
            app.before(WorkStateRoutes.DRAIN_PATH, auth);
            if (workItems.isPresent()) {
                app.before("/work/items/{id}", auth);
            }
        });
        app.before("/cluster/leader/release", LeaderOnly.handler(gate));
        cluster.register(app);
        if (workItems.isPresent()) {
            app.before("/work/items/{id}", LeaderOnly.handler(gate));
            new WorkItemRoutes(election, workItems.get(), gate, calls, work).register(app);
        } else {
            WorkItemRoutes.registerWithoutStore(app, backend);
        }
        if (work.isPresent()) {
            app.before(WorkStateRoutes.DRAIN_PATH, LeaderOnly.handler(gate));
            new WorkStateRoutes(work.get(), calls).register(app);
        } else {
            WorkStateRoutes.registerWithout(app, workItems.isPresent() ? WorkStateRoutes.notRunning()
                    : WorkItemRoutes.noSharedStore(backend));
        }
        app.get("/metrics", ctx -> metrics(ctx, cluster, metrics, registry));
        return new NodeApi(settings, app);
    }

    /** A bounded pool: Javalin's default grows to 250 threads, far more than a node's API needs. */
    private static QueuedThreadPool threadPool() {
        QueuedThreadPool pool = new QueuedThreadPool(MAX_THREADS, 2, (int) Duration.ofMinutes(1).toMillis());
        pool.setName("baton-http");
        return pool;
    }

    /**
     * Starts listening.
     *
     * @throws CannotListen if the address cannot be bound
     */
    public NodeApi start() {
        try {
            app.start(settings.host(), settings.port());
            warmUpWorkItems();
            return this;
        } catch (RuntimeException e) {
            app.stop();
            throw new CannotListen("cannot listen on " + settings.host() + ":" + settings.port() + ": "
                    + rootMessage(e), e);
        }
    }

    /**
     * Runs the work-item codec once, so that a node's first write after it becomes leader does not pay for Jackson's
     * first look at the item record (measured: a cold first write took ~90 ms more than the next ones).
     */
    private static void warmUpWorkItems() {
        byte[] sample = "{\"rtspUrl\":\"rtsp://warm-up/stream\",\"modelId\":1,\"modelName\":\"warm-up\"}"
                .getBytes(StandardCharsets.UTF_8);
        try {
            WorkItemJson.toTree(WorkItemJson.parse(WorkItemJson.toJson(WorkItemJson.parse(sample, "warm-up"))));
        } catch (RuntimeException e) {
            // Only a warm-up: never a reason not to serve.
            log.debug("Work item codec warm-up failed", e);
        }
    }

    /** The port the API listens on. */
    public int port() {
        return app.port();
    }

    /** Stops serving; requests in flight finish first. */
    @Override
    public void close() {
        app.stop();
    }

    private static void metrics(Context ctx, ClusterRoutes cluster, MicrometerElectionMetrics metrics,
            PrometheusMeterRegistry registry) {
        metrics.recordMembers(cluster.snapshot().members());
        ctx.contentType("text/plain; version=0.0.4; charset=utf-8").result(registry.scrape());
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return message == null || message.isBlank() ? root.getClass().getSimpleName() : message;
    }
}

package dev.baton.server;

import dev.baton.core.ElectionConfig;
import dev.baton.http.LeaderGate;
import dev.baton.server.internal.api.NodeApi;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code baton node}: runs one election node until SIGTERM or SIGINT and prints every event as a JSON line on stdout.
 * This class only turns flags into {@link NodeSettings} and reports what is wrong with them; {@link Backends} opens the
 * backend and {@link RunningNode} does the running.
 *
 * <p>Flags belong to a kind of backend: the lease timings, {@code --node-id} and {@code --fenced-writes} to the store
 * backends, {@link PeerFlags} to {@code --backend quorum} (old name {@code peer}) and {@code --backend bully}. A
 * flag given to the other kind is a usage error rather than silently ignored.
 *
 * <p>Four hidden flags serve the fault harness ({@code baton chaos}) and the process tests, never operators:
 * {@code --chaos-hooks} (precise real-clock stamps on every line, and commands such as {@code partition} read from
 * stdin), {@code --clock-rate R} (the node's clock runs at rate R, 0.9 to 1.1), {@code --fenced-writes-to HOST:PORT}
 * (the fenced-write loop writes to an external fenced resource, {@code dev.baton.server.chaos.FenceResource}, which
 * lets serverless backends write too) and {@code --naive} (behave like the seeds, e.g. write without checking that the
 * leadership is still valid). See {@link ChaosSettings}.
 */
@Command(
        name = "node",
        mixinStandardHelpOptions = true,
        header = "Runs one election node until SIGTERM or SIGINT, printing its events as JSON lines.",
        sortOptions = false,
        description = {
            "Runs one election node until SIGTERM or SIGINT (a leader releases its lease, then the node exits 0).",
            "Prints one JSON object per line on stdout for every event; logs go to stderr."
        })
final class NodeCommand implements Callable<Integer> {

    @Option(names = "--backend", required = true, paramLabel = "URI",
            description = "Where the group's lease lives: " + Backends.FORMS + " (no server: the nodes elect among "
                    + "themselves; quorum needs --listen, --seeds and --cluster-size, bully --listen and "
                    + "--leader-store).")
    String backend;

    @Option(names = "--group", required = true, paramLabel = "NAME",
            description = "The group to elect a leader for, e.g. orders-scheduler (on quorum: the cluster's name).")
    String group;

    @Option(names = "--node-id", paramLabel = "ID",
            description = "This node's id in the group (default: HOSTNAME:PORT of --http, the same on every "
                    + "restart; a random UUID without --http; on quorum and bully the id is the --listen address).")
    String nodeId;

    @Option(names = "--identifier", paramLabel = "NAME", defaultValue = "baton",
            description = "Human-readable name shown in the registry (default: ${DEFAULT-VALUE}).")
    String identifier;

    @Option(names = "--profile", paramLabel = "NAME", defaultValue = "default",
            description = "Timing preset: default (lease TTL 30s, renew 10s, check 5s; quorum: heartbeat 1s, timeout "
                    + "5s, TTL 10s; bully: ping 1s, election 2s, hold-down 30s) or fast (3s, 1s, 500ms; quorum: 100ms, "
                    + "500ms, 1s; bully: 100ms, 200ms, 3s).")
    String profile;

    @Option(names = "--lease-ttl", paramLabel = "DUR", converter = DurationConverter.class,
            description = "How long the store keeps an unrenewed lease (overrides the profile).")
    Duration leaseTtl;

    @Option(names = "--renew-interval", paramLabel = "DUR", converter = DurationConverter.class,
            description = "How often the leader renews; must be well below the lease TTL (overrides the profile).")
    Duration renewInterval;

    @Option(names = "--check-interval", paramLabel = "DUR", converter = DurationConverter.class,
            description = "Followers' fallback poll; push notices usually wake them first (overrides the profile).")
    Duration checkInterval;

    @Option(names = "--fenced-writes", paramLabel = "DUR", converter = DurationConverter.class,
            description = "While leading, write (term, node, sequence) to the fenced register every DUR and print "
                    + "a fenced-write line with the store's verdict (store backends).")
    Duration fencedWrites;

    @Mixin
    PeerFlags peer = new PeerFlags();

    @Option(names = "--chaos-hooks", hidden = true,
            description = "Fault harness: mono/since/sent/answered stamps on the JSON lines, commands on stdin.")
    boolean chaosHooks;

    @Option(names = "--clock-rate", hidden = true, paramLabel = "R",
            description = "Fault harness: the node's clock runs at R times real time (0.9 to 1.1).")
    Double clockRate;

    @Option(names = "--fenced-writes-to", hidden = true, paramLabel = "HOST:PORT",
            description = "Fault harness: --fenced-writes go to this external fenced resource instead of the store.")
    String fencedWritesTo;

    @Option(names = "--chaos-groups", hidden = true, paramLabel = "N", defaultValue = "1",
            description = "Fault harness: run N elections on the store's one session, --group and GROUP-2..GROUP-N, "
                    + "each leadership line naming its group.")
    int chaosGroups;

    @Option(names = "--naive", hidden = true,
            description = "Fault harness: behave like the seeds (no local deadline; write while believing to lead).")
    boolean naive;

    @Option(names = WorkSettings.FLAG, paramLabel = "URLS",
            description = "Run the work cluster of seed 001 in this node: the leader connects to these workers "
                    + "(ws://HOST:PORT,...; the same list on every node) and assigns them the work items, kept in "
                    + "the store, or with --backend quorum|bully in maps the nodes replicate among themselves. "
                    + "Default: the DETECTOR_WORKERS environment variable, if set.")
    String workers;

    @Option(names = ItemsQuery.SQL_FLAG, paramLabel = "SQL",
            description = "With --workers: desired items also come from this query, run by the leader on every "
                    + "regeneration (rows mapped by column name: subscription_identifier, rtsp_url, model_id, "
                    + "model_name, model_url, ...). Needs --items-db.")
    String itemsSql;

    @Option(names = ItemsQuery.DB_FLAG, paramLabel = "JDBC_URL",
            description = "The database --items-sql runs on: jdbc:postgresql://HOST[:PORT]/DB?user=...&password=...")
    String itemsDb;

    @Option(names = WorkSettings.RESTART_GRACE_FLAG, paramLabel = "DUR", converter = DurationConverter.class,
            description = "With --workers: a worker that goes away keeps its items this long (no move, and no second"
                    + " subscribe if it comes back still running them), so a restart or a short network cut moves "
                    + "nothing; a drained worker gets no grace. Default 0: its items move at once.")
    Duration restartGrace;

    @Option(names = WorkSettings.BALANCE_FLAG, paramLabel = "MODE",
            description = "With --workers: what the planner balances: count (items per worker, the default), weighted"
                    + " (total item weight) or load (total item weight kept within 10% of the mean, at most 64 "
                    + "balancing moves per round; see --imbalance-band and --max-moves-per-round).")
    String balance;

    @Option(names = WorkSettings.BAND_FLAG, paramLabel = "FRACTION",
            description = "With --balance load: nothing moves while every worker's load is within this fraction of "
                    + "the mean (default 0.1, 10%%).")
    Double imbalanceBand;

    @Option(names = WorkSettings.MAX_MOVES_FLAG, paramLabel = "N",
            description = "With --balance load: at most N balancing moves per round (default 64; 0: only place new "
                    + "and orphaned items), so a large imbalance is spread over several rounds.")
    Integer maxMovesPerRound;

    @Option(names = ItemsQuery.NOTIFY_FLAG, paramLabel = "CHANNEL",
            description = "With --items-sql: the leader listens on this PostgreSQL notification channel and runs the "
                    + "query again as soon as a notification arrives (send one from a trigger on the tables the query"
                    + " reads; see docs/work.md). The reconcile interval stays the backstop.")
    String itemsNotify;

    /** The process environment, for {@code DETECTOR_WORKERS} and {@code HOSTNAME}; replaced in tests. */
    Function<String, String> environment = System::getenv;

    @Option(names = "--http", paramLabel = "HOST:PORT",
            description = "Serve the HTTP API (cluster status, leader, health, events, work items, metrics, "
                    + "dashboard) on HOST:PORT, e.g. 127.0.0.1:8001 or 0.0.0.0:8001.")
    String http;

    @Option(names = "--advertise-url", paramLabel = "URL",
            description = "The URL other nodes and clients reach this node's API at, shown to them as the "
                    + "leader's URL (default: http://HOST:PORT of --http).")
    String advertiseUrl;

    @Option(names = "--leader-redirect",
            description = "Followers answer writes with 307 and Location on the leader, instead of 503 with "
                    + "X-Leader-Id and X-Leader-Url (the default, for nginx proxy_next_upstream http_503).")
    boolean leaderRedirect;

    @Option(names = "--api-token-file", paramLabel = "FILE",
            description = "Writes (PUT, DELETE, POST) need 'Authorization: Bearer <token>', the token being the "
                    + "content of FILE (one line).")
    Path apiTokenFile;

    @Option(names = "--http-allow-anonymous-writes",
            description = "Accept writes without a token when --http is reachable from other machines (not a "
                    + "loopback address) and there is no --api-token-file: anyone who reaches it can then change the "
                    + "work items and make the leader step down.")
    boolean allowAnonymousWrites;

    @Override
    public Integer call() {
        NodeSettings settings = settings();
        NodeBackend opened = Backends.open(settings.group(), settings.backend(), settings.chaos().hooks());
        RunningNode.runUntilSignalled(settings, opened, System.out);
        return BatonCli.EXIT_OK; // not reached: the node ends when a signal's shutdown hook has cleaned up
    }

    /** Validates the flags into settings, before anything connects anywhere. */
    NodeSettings settings() {
        requireText("--group", group);
        requireText("--identifier", identifier);
        if (fencedWrites != null && fencedWrites.isZero()) {
            throw CliError.usage("--fenced-writes must be positive, was " + fencedWrites);
        }
        ChaosSettings chaos = chaosSettings();
        if (chaos.groups() > 1 && (Backends.isQuorum(backend) || Backends.isBully(backend))) {
            throw CliError.usage("--chaos-groups applies to store backends only (a serverless node runs one group)");
        }
        if (Backends.isQuorum(backend)) {
            return serverlessSettings(Backends.quorumName(backend), chaos).withChaos(chaos);
        }
        if (Backends.isBully(backend)) {
            return serverlessSettings(Backends.BULLY, chaos).withChaos(chaos);
        }
        List<String> peerFlags = peer.given();
        if (!peerFlags.isEmpty()) {
            String owner = peerFlags.stream().anyMatch(PeerFlags.QUORUM_ONLY::contains) ? "--backend quorum"
                    : peerFlags.contains("--leader-store") ? "--backend bully" : "--backend quorum or bully";
            throw CliError.usage(String.join(", ", peerFlags) + (peerFlags.size() == 1 ? " applies" : " apply")
                    + " to " + owner + " only, not to " + Backends.redact(backend.strip()));
        }
        Optional<NodeApi.Settings> api = httpSettings();
        String id = nodeId != null ? nodeId
                : NodeIdentity.defaultId(api.map(NodeApi.Settings::port), environment);
        requireText("--node-id", id);
        return new NodeSettings(group.strip(), id.strip(), identifier.strip(), profile,
                new BackendSpec.Store(backend, config()), Optional.ofNullable(fencedWrites), api,
                workSettings(), chaos);
    }

    /** The hidden fault-harness flags; see {@link ChaosSettings}. */
    private ChaosSettings chaosSettings() {
        double rate = 1.0;
        if (clockRate != null) {
            rate = clockRate;
            if (!(rate >= ChaosSettings.MIN_RATE && rate <= ChaosSettings.MAX_RATE)) {
                throw CliError.usage("--clock-rate must be from " + ChaosSettings.MIN_RATE + " to "
                        + ChaosSettings.MAX_RATE + ", was " + clockRate);
            }
        }
        Optional<ChaosSettings.FenceAddress> fenceTo = Optional.empty();
        if (fencedWritesTo != null) {
            if (fencedWrites == null) {
                throw CliError.usage("--fenced-writes-to needs --fenced-writes DUR: it says where those writes go");
            }
            try {
                fenceTo = Optional.of(ChaosSettings.FenceAddress.parse(fencedWritesTo));
            } catch (IllegalArgumentException e) {
                throw CliError.usage("--fenced-writes-to " + e.getMessage(), e);
            }
        }
        if (chaosGroups < 1 || chaosGroups > 1000) {
            throw CliError.usage("--chaos-groups must be from 1 to 1000, was " + chaosGroups);
        }
        return new ChaosSettings(chaosHooks, rate, fenceTo, naive, chaosGroups);
    }

    private WorkSettings.Balance balance() {
        return new WorkSettings.Balance(balance, imbalanceBand, maxMovesPerRound);
    }

    /** {@code --workers}, else {@code DETECTOR_WORKERS} (the seed's variable) if set and not blank. */
    private Optional<WorkSettings> workSettings() {
        Optional<ItemsQuery> items = ItemsQuery.parse(itemsSql, itemsDb, itemsNotify);
        if (workers != null) {
            return Optional.of(WorkSettings.parse(workers, WorkSettings.FLAG, profile, items, restartGrace,
                    balance()));
        }
        String fromEnvironment = environment.apply(WorkSettings.ENV);
        if (fromEnvironment == null || fromEnvironment.isBlank()) {
            if (items.isPresent()) {
                throw CliError.usage(ItemsQuery.SQL_FLAG + " needs --workers ws://HOST:PORT,... (or DETECTOR_WORKERS):"
                        + " the items are assigned to those workers");
            }
            if (restartGrace != null) {
                throw CliError.usage(WorkSettings.RESTART_GRACE_FLAG + " needs --workers ws://HOST:PORT,... (or "
                        + "DETECTOR_WORKERS): it is how long those workers keep their items while away");
            }
            if (!balance().isDefault()) {
                throw CliError.usage(balance().firstFlag() + " needs --workers ws://HOST:PORT,... (or "
                        + "DETECTOR_WORKERS): it is how items are balanced over those workers");
            }
            return Optional.empty();
        }
        return Optional.of(WorkSettings.parse(fromEnvironment, WorkSettings.ENV, profile, items, restartGrace,
                balance()));
    }

    /**
     * {@code --backend quorum} (or {@code peer}) or {@code bully}: the store-only flags are refused, the node id is
     * the listen address. (Even a bully node on a Redis or PostgreSQL leader store shares no store with the others:
     * the store holds the leader record only.) {@code --workers} runs the work cluster on maps the members replicate
     * among themselves ({@link ServerlessWorkStore}).
     */
    private NodeSettings serverlessSettings(String kind, ChaosSettings chaos) {
        if (fencedWrites != null && chaos.fencedWritesTo().isEmpty()) {
            throw CliError.usage("--fenced-writes needs a store that fences writes (memory, redis:// or "
                    + "postgresql://); --backend " + kind + " has none");
        }
        if (nodeId != null) {
            throw CliError.usage("--node-id does not apply to --backend " + kind + ": a " + kind + " node's id is "
                    + "its --listen address");
        }
        for (String flag : new String[] {leaseTtl != null ? "--lease-ttl" : null,
            renewInterval != null ? "--renew-interval" : null, checkInterval != null ? "--check-interval" : null}) {
            if (flag != null) {
                throw CliError.usage(flag + " applies to store backends (memory, redis://, postgresql://); on "
                        + "--backend " + kind + " the timings come from --profile");
            }
        }
        if (kind.equals(Backends.BULLY)) {
            BackendSpec.Bully spec = peer.bullySpec(profile);
            return new NodeSettings(group.strip(), spec.listen().format(), identifier.strip(), profile, spec,
                    Optional.ofNullable(fencedWrites), httpSettings(), workSettings());
        }
        BackendSpec.Peer spec = peer.spec(profile, kind);
        return new NodeSettings(group.strip(), spec.listen().format(), identifier.strip(), profile, spec,
                Optional.ofNullable(fencedWrites), httpSettings(), workSettings());
    }

    private Optional<NodeApi.Settings> httpSettings() {
        if (http == null) {
            for (String flag : new String[] {advertiseUrl != null ? "--advertise-url" : null,
                leaderRedirect ? "--leader-redirect" : null, apiTokenFile != null ? "--api-token-file" : null,
                allowAnonymousWrites ? "--http-allow-anonymous-writes" : null}) {
                if (flag != null) {
                    throw CliError.usage(flag + " needs --http HOST:PORT");
                }
            }
            return Optional.empty();
        }
        int colon = http.lastIndexOf(':');
        String host = colon < 0 ? "" : http.substring(0, colon).strip();
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty()) {
            throw CliError.usage("--http must be HOST:PORT, e.g. 127.0.0.1:8001, was '" + http + "'");
        }
        int port = port(http.substring(colon + 1).strip());
        InetAddress address = resolve(host);
        if (apiTokenFile == null && !allowAnonymousWrites && !address.isLoopbackAddress()) {
            throw CliError.usage("--http " + http.strip() + " is reachable from other machines: give --api-token-file "
                    + "FILE so that writes need its token, or --http-allow-anonymous-writes to accept writes from "
                    + "anyone who can reach it");
        }
        String url = advertiseUrl != null ? advertised(advertiseUrl) : defaultUrl(address, host, port);
        LeaderGate.Mode mode = leaderRedirect ? LeaderGate.Mode.REDIRECT : LeaderGate.Mode.FAILOVER;
        return Optional.of(new NodeApi.Settings(host, port, url, mode, Optional.ofNullable(apiTokenFile)
                .map(NodeCommand::readToken)));
    }

    private static int port(String text) {
        try {
            int port = Integer.parseInt(text);
            if (port >= 1 && port <= 65_535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw CliError.usage("--http: the port must be a number from 1 to 65535, was '" + text + "'");
    }

    private static InetAddress resolve(String host) {
        try {
            return InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw CliError.usage("--http: cannot resolve host '" + host + "'", e);
        }
    }

    /** {@code http://HOST:PORT}; for a wildcard address, the machine's host name, which others can resolve. */
    private static String defaultUrl(InetAddress address, String host, int port) {
        String name = host;
        if (address.isAnyLocalAddress()) {
            try {
                name = InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                throw CliError.usage("--http " + host + ":" + port + " listens on every address, and this machine's "
                        + "host name cannot be resolved: give --advertise-url", e);
            }
        }
        return "http://" + (name.contains(":") ? "[" + name + "]" : name) + ":" + port;
    }

    private static String advertised(String url) {
        URI uri;
        try {
            uri = new URI(url.strip());
        } catch (URISyntaxException e) {
            throw CliError.usage("--advertise-url is not a valid URL: " + e.getMessage(), e);
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null
                || uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw CliError.usage("--advertise-url must be an http:// or https:// URL with a host and no query, e.g. "
                    + "http://node-1.internal:8001, was '" + url + "'");
        }
        String text = uri.toString();
        return text.endsWith("/") ? text.substring(0, text.length() - 1) : text;
    }

    /** The token: the file's content without surrounding whitespace; one line, no spaces inside. */
    private static String readToken(Path file) {
        String token;
        try {
            token = Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (NoSuchFileException e) {
            throw CliError.usage("--api-token-file: no such file: " + file, e);
        } catch (MalformedInputException e) {
            throw CliError.usage("--api-token-file: " + file + " is not UTF-8 text", e);
        } catch (IOException e) {
            throw CliError.usage("--api-token-file: cannot read " + file + ": " + e, e);
        }
        if (token.isEmpty()) {
            throw CliError.usage("--api-token-file: " + file + " is empty");
        }
        if (token.chars().anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
            throw CliError.usage("--api-token-file: " + file + " must hold one token on one line, without spaces");
        }
        return token;
    }

    private ElectionConfig config() {
        try {
            ElectionConfig.Builder builder = ElectionConfig.profile(profile);
            if (leaseTtl != null) {
                builder.leaseTtl(leaseTtl);
            }
            if (renewInterval != null) {
                builder.renewInterval(renewInterval);
            }
            if (checkInterval != null) {
                builder.checkInterval(checkInterval);
            }
            // --naive (the fault harness only): no local deadline, as the seeds; see ElectionConfig.localDeadline.
            return builder.localDeadline(!naive).build();
        } catch (IllegalArgumentException | NullPointerException e) {
            throw CliError.usage("invalid configuration: " + e.getMessage(), e);
        }
    }

    private static void requireText(String flag, String value) {
        if (value == null || value.isBlank()) {
            throw CliError.usage(flag + " must not be blank");
        }
    }
}

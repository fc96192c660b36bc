package dev.baton.http;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.Election;
import dev.baton.core.LeaderInfo;
import dev.baton.core.NodeInfo;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether this node may serve a write, and if not, what to answer: the one decision behind
 * {@link LeaderOnly} (Javalin) and {@link LeaderOnlyFilter} (any servlet container), so both answer alike.
 *
 * <ul>
 *   <li>This node holds a valid leadership: the write {@linkplain Verdict#passes() passes}.</li>
 *   <li>Another node leads, {@link Mode#FAILOVER} (the default): {@code 503} with {@code X-Leader-Id},
 *       {@code X-Leader-Url} and {@code {"error":"not_leader", ...}}. A load balancer that retries on 503 (nginx
 *       {@code proxy_next_upstream http_503}) moves on until it reaches the leader, and the client only ever talks to
 *       the balancer: seed 002's failover mode.</li>
 *   <li>Another node leads, {@link Mode#REDIRECT}: {@code 307} with {@code Location} = the leader's URL plus the same
 *       path and query (a 307 keeps the method and body), and the same headers and body. If the leader's URL is not
 *       known (it runs without an HTTP API, or its registry entry cannot be read), the answer falls back to the 503.</li>
 *   <li>No leader is known, or this node's own leadership has lapsed and nobody else has taken over yet: {@code 503}
 *       with {@code {"error":"no_leader", ...}} and {@code Retry-After: 1}.</li>
 * </ul>
 *
 * <p>The leader's URL is its registry entry's {@link NodeInfo#apiAddress() API address}: a node must be registered
 * with one ({@code NodeInfo.withApiAddress}) for followers to name it. It is looked up once per leader and term and
 * then cached. The check itself reads only this node's state, so passing it costs nothing; by the time the write runs
 * the leadership may already be gone, which is why writes must also be fenced with the term (the check is the polite
 * half, the store's fence the safe half). Thread-safe.
 */
public final class LeaderGate {

    /** What a follower answers to a write. */
    public enum Mode {
        /** {@code 503} with the leader's id and URL in headers and body (seed 002's nginx failover). */
        FAILOVER,
        /** {@code 307} to the leader's URL with the same path and query. */
        REDIRECT
    }

    /** Header naming the leader's node id. */
    public static final String LEADER_ID_HEADER = "X-Leader-Id";
    /** Header naming the leader's API base URL. */
    public static final String LEADER_URL_HEADER = "X-Leader-Url";
    /** Default bound on the registry read that finds the leader's URL. */
    public static final Duration DEFAULT_LOOKUP_TIMEOUT = Duration.ofSeconds(1);

    private static final Logger log = LoggerFactory.getLogger(LeaderGate.class);
    private static final Set<String> READ_METHODS = Set.of("GET", "HEAD", "OPTIONS", "TRACE");
    private static final Verdict PASS = new Verdict(0, Map.of(), "");

    /**
     * The answer to a write.
     *
     * @param status  0 if the write passes, else the HTTP status to answer with
     * @param headers headers to set on the answer (in order)
     * @param body    the JSON body of the answer, empty if the write passes
     */
    public record Verdict(int status, Map<String, String> headers, String body) {

        public Verdict {
            headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
            Objects.requireNonNull(body, "body");
        }

        /** Whether the request may go on to its handler. */
        public boolean passes() {
            return status == 0;
        }
    }

    private record Located(LeaderInfo leader, Optional<String> url) {
    }

    private final Election election;
    private final Mode mode;
    private final Duration lookupTimeout;
    private volatile Located located;

    /** A gate for {@code election}'s group, answering in {@code mode}. */
    public LeaderGate(Election election, Mode mode) {
        this(election, mode, DEFAULT_LOOKUP_TIMEOUT);
    }

    /** The same, with a bound on the registry read that finds the leader's URL. */
    public LeaderGate(Election election, Mode mode, Duration lookupTimeout) {
        this.election = Objects.requireNonNull(election, "election");
        this.mode = Objects.requireNonNull(mode, "mode");
        this.lookupTimeout = Objects.requireNonNull(lookupTimeout, "lookupTimeout");
    }

    /** What this gate answers a follower's write with. */
    public Mode mode() {
        return mode;
    }

    /**
     * Whether {@code method} writes: anything but {@code GET}, {@code HEAD}, {@code OPTIONS} and {@code TRACE} (the
     * seed's nginx map sends {@code POST}, {@code PUT}, {@code DELETE} and {@code PATCH} to the leader).
     */
    public static boolean isWrite(String method) {
        return !READ_METHODS.contains(method.toUpperCase(Locale.ROOT));
    }

    /**
     * Decides on a write to {@code pathAndQuery} (the request's raw, still percent-encoded path and query, which a
     * redirect repeats on the leader).
     */
    public Verdict check(String pathAndQuery) {
        if (election.leadership().isPresent()) {
            return PASS;
        }
        Optional<LeaderInfo> other = otherLeader();
        if (other.isEmpty()) {
            return noLeader();
        }
        Optional<String> url = leaderUrl(other.get());
        if (mode == Mode.REDIRECT && url.isPresent()) {
            Map<String, String> headers = leaderHeaders(other.get(), url);
            headers.put("Location", url.get() + pathAndQuery);
            return new Verdict(307, headers, body("not_leader",
                    "This node is not the leader; the request was redirected to the leader", other.get(), url));
        }
        return new Verdict(503, leaderHeaders(other.get(), url), body("not_leader",
                "This node is not the leader; send writes to the leader", other.get(), url));
    }

    /**
     * A 503 for a write this node let through but could not complete as leader (e.g. the store refused its term),
     * naming the leader this node now knows of, if any, in the same headers and body fields as {@link #check}.
     */
    public Verdict refuse(String error, String message) {
        Optional<LeaderInfo> other = otherLeader();
        if (other.isEmpty()) {
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("Retry-After", "1");
            return new Verdict(503, headers, body(error, message, null, Optional.empty()));
        }
        Optional<String> url = leaderUrl(other.get());
        return new Verdict(503, leaderHeaders(other.get(), url), body(error, message, other.get(), url));
    }

    /**
     * The API URL of {@code leader}, from its registry entry (this node's own, if it is the leader). Empty if the
     * leader registered none or its entry cannot be read within the lookup timeout; only found answers are cached.
     */
    public Optional<String> leaderUrl(LeaderInfo leader) {
        Located cached = located;
        if (cached != null && cached.leader().equals(leader)) {
            return cached.url();
        }
        NodeInfo self = election.membership().self();
        if (leader.nodeId().equals(self.id())) {
            return remember(leader, self.api());
        }
        try {
            Optional<NodeInfo> entry = election.membership().member(leader.nodeId())
                    .get(lookupTimeout.toNanos(), TimeUnit.NANOSECONDS);
            return entry.isPresent() ? remember(leader, entry.get().api()) : Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (ExecutionException | TimeoutException e) {
            log.debug("Cannot read the registry entry of leader {}: {}", leader.nodeId(), e.toString());
            return Optional.empty();
        }
    }

    private Optional<String> remember(LeaderInfo leader, Optional<String> url) {
        Optional<String> base = url.map(LeaderGate::withoutTrailingSlash);
        located = new Located(leader, base);
        return base;
    }

    /** The leader, unless it is this node (whose leadership, since the check failed, has lapsed). */
    private Optional<LeaderInfo> otherLeader() {
        return election.leader().filter(leader -> !leader.nodeId().equals(election.nodeId()));
    }

    private static Verdict noLeader() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Retry-After", "1");
        return new Verdict(503, headers, body("no_leader", "No leader elected", null, Optional.empty()));
    }

    private static Map<String, String> leaderHeaders(LeaderInfo leader, Optional<String> url) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(LEADER_ID_HEADER, leader.nodeId());
        url.ifPresent(u -> headers.put(LEADER_URL_HEADER, u));
        return headers;
    }

    private static String body(String error, String message, LeaderInfo leader, Optional<String> url) {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("error", error);
        json.put("message", message);
        if (leader != null) {
            json.put("leader_id", leader.nodeId());
            json.put("leader_url", url.orElse(null));
            json.put("term", leader.term());
        }
        return json.toString();
    }

    private static String withoutTrailingSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}

package dev.baton.micrometer;

import dev.baton.core.Election;
import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.MemberState;
import dev.baton.core.MemberStatus;
import dev.baton.core.Registration;
import dev.baton.core.time.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Records an election in Micrometer: pass it to {@code Baton.election(store).metrics(...)} for store-call and renewal
 * timings, and {@link #bindTo(Election) bind} it to the built election for leadership, term and membership. With the
 * Prometheus registry the meters read:
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>Prometheus name</th><th>type</th><th>what</th></tr>
 *   <tr><td>{@code baton_is_leader}</td><td>gauge</td><td>1 while this node holds a valid leadership, else 0</td></tr>
 *   <tr><td>{@code baton_term}</td><td>gauge</td><td>the term of the leader this node knows of, 0 if none</td></tr>
 *   <tr><td>{@code baton_leadership_changes_total}</td><td>counter</td><td>new leaders (new terms) this node
 *       learned of</td></tr>
 *   <tr><td>{@code baton_leaderless_seconds_total}</td><td>counter</td><td>time this node knew of no leader</td></tr>
 *   <tr><td>{@code baton_store_call_seconds}</td><td>histogram</td><td>store calls by {@code operation} and
 *       {@code outcome} (success, failure)</td></tr>
 *   <tr><td>{@code baton_store_errors_total}</td><td>counter</td><td>store calls that failed or timed out, by
 *       {@code operation}</td></tr>
 *   <tr><td>{@code baton_lease_renew_seconds}</td><td>histogram</td><td>round trip of each successful
 *       renewal</td></tr>
 *   <tr><td>{@code baton_lease_margin_seconds}</td><td>histogram</td><td>time left before the local deadline when
 *       each renewal was sent: the safety margin; if it nears zero the renew interval is too long for the store's
 *       latency</td></tr>
 *   <tr><td>{@code baton_members}</td><td>gauge</td><td>members by {@code state} (joining, active, unreachable,
 *       leaving, removed), as of the last {@link #recordMembers} call</td></tr>
 * </table>
 *
 * <p>Every meter carries the extra tags given to the constructor (e.g. {@code group}). The {@link ElectionMetrics}
 * callbacks run on the election's scheduler thread and only touch cached meters; the event listener is added with a
 * direct executor and does constant work. Membership is a store read, so it is not polled here: call
 * {@link #recordMembers} with each status you fetch (the node does so on every {@code /metrics} scrape and
 * {@code /cluster/status} request).
 */
public final class MicrometerElectionMetrics implements ElectionMetrics {

    private static final Duration[] CALL_BUCKETS = seconds(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
            0.25, 0.5, 1, 2.5, 5, 10);
    /** The operations core reports; their error counters exist from the start, so a dashboard sees 0, not nothing. */
    private static final List<String> KNOWN_OPERATIONS = List.of("acquire", "renew", "release", "register",
            "heartbeat", "unregister", "sweep expired members");
    private static final Duration[] MARGIN_BUCKETS = seconds(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 20, 30, 60);

    private final MeterRegistry registry;
    private final Tags tags;
    private final Clock clock;
    private final Map<String, Timer> callTimers = new ConcurrentHashMap<>();
    private final Map<String, Counter> errorCounters = new ConcurrentHashMap<>();
    private final Timer renewTimer;
    private final Timer marginTimer;
    private final Map<MemberState, AtomicInteger> members = new EnumMap<>(MemberState.class);
    private final List<LeaderWatch> watches = new CopyOnWriteArrayList<>();

    /** Records into {@code registry}, tagging every meter with {@code tags} (e.g. {@code Tags.of("group", g)}). */
    public MicrometerElectionMetrics(MeterRegistry registry, Tags tags) {
        this(registry, tags, Clock.system());
    }

    /** The same, measuring leaderless time on {@code clock}. */
    public MicrometerElectionMetrics(MeterRegistry registry, Tags tags, Clock clock) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.tags = Objects.requireNonNull(tags, "tags");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.renewTimer = Timer.builder("baton.lease.renew")
                .description("Round trip of successful lease renewals")
                .tags(tags).serviceLevelObjectives(CALL_BUCKETS).register(registry);
        this.marginTimer = Timer.builder("baton.lease.margin")
                .description("Time left before the leader's local deadline when each renewal was sent")
                .tags(tags).serviceLevelObjectives(MARGIN_BUCKETS).register(registry);
        KNOWN_OPERATIONS.forEach(this::errors);
        for (MemberState state : MemberState.values()) {
            AtomicInteger count = new AtomicInteger();
            members.put(state, count);
            Gauge.builder("baton.members", count, AtomicInteger::get)
                    .description("Members of the group by state, as of the last status read")
                    .tags(tags).tag("state", state.name().toLowerCase(Locale.ROOT)).register(registry);
        }
    }

    @Override
    public void storeCall(String operation, long nanos, boolean succeeded) {
        String outcome = succeeded ? "success" : "failure";
        callTimers.computeIfAbsent(operation + '\n' + outcome, key -> Timer.builder("baton.store.call")
                .description("Store calls made by the election")
                .tags(tags).tag("operation", operation).tag("outcome", outcome)
                .serviceLevelObjectives(CALL_BUCKETS).register(registry))
                .record(nanos, TimeUnit.NANOSECONDS);
        if (!succeeded) {
            errors(operation).increment();
        }
    }

    private Counter errors(String operation) {
        return errorCounters.computeIfAbsent(operation, key -> Counter.builder("baton.store.errors")
                .description("Store calls that failed or timed out")
                .tags(tags).tag("operation", operation).register(registry));
    }

    @Override
    public void leaseRenewed(long latencyNanos, long marginNanos) {
        renewTimer.record(latencyNanos, TimeUnit.NANOSECONDS);
        marginTimer.record(Math.max(0, marginNanos), TimeUnit.NANOSECONDS);
    }

    /**
     * Registers the meters that follow {@code election}: whether it leads, the term, leadership changes and
     * leaderless time. Close the returned registration to stop following (the gauges then read the final values).
     */
    public Registration bindTo(Election election) {
        LeaderWatch watch = new LeaderWatch(clock, election.leader().isEmpty());
        watches.add(watch); // a function counter holds its object weakly
        Gauge.builder("baton.is.leader", election, e -> e.isLeader() ? 1 : 0)
                .description("1 while this node holds a valid leadership, else 0")
                .tags(tags).strongReference(true).register(registry);
        Gauge.builder("baton.term", election, e -> e.leader().map(l -> (double) l.term()).orElse(0.0))
                .description("Term of the leader this node knows of, 0 if none")
                .tags(tags).strongReference(true).register(registry);
        Counter changes = Counter.builder("baton.leadership.changes")
                .description("New leaders (new terms) this node learned of")
                .tags(tags).register(registry);
        FunctionCounter.builder("baton.leaderless", watch, LeaderWatch::leaderlessSeconds)
                .description("Time this node knew of no leader")
                .baseUnit("seconds").tags(tags).register(registry);
        return election.addListener(event -> {
            if (event instanceof ElectionEvent.LeaderChanged changed) {
                watch.leaderKnown(changed.leader().isPresent());
                if (changed.leader().isPresent()) {
                    changes.increment();
                }
            }
        }, Runnable::run);
    }

    /** Updates {@code baton_members} from a status snapshot's members. */
    public void recordMembers(List<MemberStatus> snapshot) {
        Map<MemberState, Integer> counts = new EnumMap<>(MemberState.class);
        for (MemberStatus member : snapshot) {
            counts.merge(member.state(), 1, Integer::sum);
        }
        members.forEach((state, gauge) -> gauge.set(counts.getOrDefault(state, 0)));
    }

    private static Duration[] seconds(double... values) {
        List<Duration> buckets = new ArrayList<>();
        for (double value : values) {
            buckets.add(Duration.ofNanos(Math.round(value * 1e9)));
        }
        return buckets.toArray(Duration[]::new);
    }

    /** Accumulates the time without a known leader, on the monotonic clock. */
    private static final class LeaderWatch {
        private final Clock clock;
        private long accumulatedNanos;
        private long leaderlessSince;
        private boolean leaderless;

        LeaderWatch(Clock clock, boolean leaderless) {
            this.clock = clock;
            this.leaderless = leaderless;
            this.leaderlessSince = clock.nanoTime();
        }

        synchronized void leaderKnown(boolean known) {
            long now = clock.nanoTime();
            if (known && leaderless) {
                accumulatedNanos += now - leaderlessSince;
                leaderless = false;
            } else if (!known && !leaderless) {
                leaderlessSince = now;
                leaderless = true;
            }
        }

        synchronized double leaderlessSeconds() {
            long total = accumulatedNanos + (leaderless ? clock.nanoTime() - leaderlessSince : 0);
            return total / 1e9;
        }
    }
}

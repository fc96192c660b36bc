package dev.baton.bench.handover;

import dev.baton.bench.backend.BenchBackend;
import dev.baton.bench.stats.PhaseBreakdown;
import dev.baton.bench.support.TracingStore;
import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent;
import dev.baton.core.NodeInfo;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Baton elections as three contenders, each on its own store of the backend (its own client, connections and
 * threads: a Lettuce client for Redis, a HikariCP pool and LISTEN connection for PostgreSQL), with
 * {@link ElectionConfig#defaults()}. t1 is taken in the {@code LeadershipAcquired} listener.
 *
 * <p>Release is either {@link Election#close()} (the closed contender joins again with a new election on its store
 * once the next leader is known, so three contend at every release, as a new Curator {@code LeaderLatch} on the same
 * client or Redisson's {@code lock()} on the same client do) or {@link Election#stepDown()} (the contender stays and
 * contends again once another node leads). Listeners run in the election's own event queue, as
 * users get by default, or directly in its scheduler queue ({@code eventExecutor(Runnable::run)}).
 */
public final class BatonContenders implements Contenders {

    /** How the leader gives up. */
    public enum Release { CLOSE, STEP_DOWN }

    private static final int CONTENDERS = 3;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(10);

    private record Slot(TracingStore store, Election election) {
    }

    private final BenchBackend backend;
    private final Release release;
    private final boolean directEvents;
    private final String group;
    private final Slot[] slots = new Slot[CONTENDERS];
    private final PhaseBreakdown phases;
    private LeaderSink sink;

    /**
     * @param directEvents run listeners in the election's scheduler queue instead of its event queue
     * @param warmup       handovers to leave out of the phase breakdown
     */
    public BatonContenders(BenchBackend backend, Release release, boolean directEvents, String group, int warmup,
            int n) {
        this.backend = backend;
        this.release = release;
        this.directEvents = directEvents;
        this.group = group;
        Map<String, String> explained = new LinkedHashMap<>();
        explained.put("t0 -> release sent", (release == Release.CLOSE ? "close()" : "stepDown()")
                + " -> the election's queue; LeadershipLost delivered to listeners" + (directEvents ? ""
                : " (event queue and back)") + "; store.release() called");
        explained.put("release sent -> notice at winner", backend.path().releaseToNotice());
        explained.put("notice -> acquire sent", "the winner's armed acquire, sent from the thread that read the"
                + " notice; store.acquire() called");
        explained.put("acquire round trip", backend.path().acquireRoundTrip());
        explained.put("granted -> listener (t1)", "hop to the election's queue, engine becomes leader, "
                + (directEvents ? "listener runs there" : "hop to the event queue, listener runs"));
        this.phases = new PhaseBreakdown(warmup, n, explained);
    }

    @Override
    public String name() {
        String how = release == Release.CLOSE ? "close()" : "stepDown()";
        return "Baton " + how + (directEvents ? ", listener on Runnable::run" : "");
    }

    @Override
    public String note() {
        return "defaults(), " + (directEvents ? "eventExecutor(Runnable::run)" : "default event queue");
    }

    @Override
    public void start(LeaderSink leaderSink) throws Exception {
        this.sink = leaderSink;
        for (int i = 0; i < CONTENDERS; i++) {
            slots[i] = open(i, new TracingStore(backend.connect()));
        }
    }

    private Slot open(int contender, TracingStore store) throws Exception {
        Baton.ElectionBuilder builder = Baton.election(store)
                .group(group)
                .node(NodeInfo.create("contender-" + contender))
                .config(ElectionConfig.defaults());
        if (directEvents) {
            builder.eventExecutor(Runnable::run);
        }
        Election election = builder.build();
        election.addListener(event -> {
            if (event instanceof ElectionEvent.LeadershipAcquired) {
                sink.acquired(contender);
            }
        });
        election.start();
        election.awaitElected(READY_TIMEOUT);
        store.watching().get(READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        return new Slot(store, election);
    }

    @Override
    public void release(int contender) {
        Election election = slots[contender].election();
        sink.releasing();
        if (release == Release.CLOSE) {
            election.close();
        } else {
            election.stepDown();
        }
    }

    @Override
    public void rejoin(int contender) throws Exception {
        if (release == Release.CLOSE) {
            // close() returned once the release went out and the registry entry was gone: the store is free again.
            slots[contender] = open(contender, slots[contender].store());
        }
    }

    @Override
    public void handedOver(int from, int to, long t0, long t1) {
        TracingStore releaser = slots[from].store();
        TracingStore winner = slots[to].store();
        phases.record(t0, releaser.releaseCalled(), winner.releaseNoticed(), winner.acquireCalled(),
                winner.acquireGranted(), t1);
    }

    @Override
    public Optional<String> breakdown() {
        return Optional.of(phases.table());
    }

    @Override
    public void close() {
        for (Slot slot : slots) {
            if (slot != null) {
                slot.election().close();
            }
        }
        for (Slot slot : slots) {
            if (slot != null) {
                slot.store().close();
            }
        }
    }
}

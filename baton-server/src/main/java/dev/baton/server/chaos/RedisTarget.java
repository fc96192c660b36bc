package dev.baton.server.chaos;

import dev.baton.testkit.RedisServer;
import dev.baton.testkit.StoreClock;
import java.util.List;
import java.util.Optional;

/**
 * A private Redis that persists like a production one (RDB snapshots and an append-only file with {@code appendfsync
 * everysec}), with every node on its own proxied link. Beside the node and link faults, Redis can lose everything,
 * come back from a snapshot taken before a hand-over, or from an append-only file that lost its last writes: the
 * faults that would let a store issue a term twice. Started on a steppable clock, its wall clock (which ends leases:
 * {@code PX}) can be stepped and skewed.
 */
final class RedisTarget extends StoreTarget {

    static final List<FaultKind> FAULTS = withCommonFaults(FaultKind.STORE_RESTART_EMPTY,
            FaultKind.STORE_RESTORE_SNAPSHOT, FaultKind.STORE_TRUNCATED_AOF);

    private final RedisServer server;
    private final ServerClock clock;
    private RedisServer.Snapshot snapshot;
    private RedisServer.AofMark aofMark;

    RedisTarget(int nodes, StoreTimings timings, ServerClock clock) {
        super(timings);
        this.clock = clock;
        RedisServer.Builder builder = RedisServer.builder().appendOnly(true);
        if (clock == ServerClock.STEPPABLE) {
            builder.withStoreClock();
        }
        this.server = builder.start();
        try {
            link(server.host(), server.port(), nodes);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public List<FaultKind> faults() {
        return FAULTS;
    }

    @Override
    public List<FaultKind> faultsOnRequest() {
        return ON_REQUEST;
    }

    @Override
    public Optional<StoreClock> storeClock() {
        return clock == ServerClock.STEPPABLE ? Optional.of(server.storeClock()) : Optional.empty();
    }

    @Override
    String uri(int proxyPort) {
        return "redis://" + server.host() + ":" + proxyPort;
    }

    @Override
    public void prepare(FaultKind fault) {
        switch (fault) {
            case STORE_RESTORE_SNAPSHOT -> snapshot = server.snapshot();
            case STORE_TRUNCATED_AOF -> aofMark = server.aofMark();
            default -> { }
        }
    }

    @Override
    void injectServerFault(FaultKind fault) {
        switch (fault) {
            case STORE_RESTART_EMPTY -> server.restartEmpty();
            case STORE_RESTORE_SNAPSHOT -> server.restartFrom(snapshot);
            case STORE_TRUNCATED_AOF -> server.restartWithAofTruncatedTo(aofMark);
            default -> throw new IllegalArgumentException("not a Redis fault: " + fault);
        }
    }

    @Override
    void pauseServer() {
        server.pause();
    }

    @Override
    void resumeServer() {
        server.resume();
    }

    @Override
    void stopServer() {
        server.close();
    }
}

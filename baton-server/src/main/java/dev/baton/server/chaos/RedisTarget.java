package dev.baton.server.chaos;

import dev.baton.testkit.RedisServer;
import java.time.Duration;
import java.util.List;

/**
 * A private Redis that persists like a production one (RDB snapshots and an append-only file with {@code appendfsync
 * everysec}), with every node on its own proxied link. Beside the node and link faults, Redis can lose everything,
 * come back from a snapshot taken before a hand-over, or from an append-only file that lost its last writes: the
 * faults that would let a store issue a term twice.
 */
final class RedisTarget implements ChaosTarget {

    private final RedisServer server;
    private final StoreLinks links;
    private final StoreTimings timings;
    private RedisServer.Snapshot snapshot;
    private RedisServer.AofMark aofMark;

    RedisTarget(int nodes, StoreTimings timings) {
        this.timings = timings;
        this.server = RedisServer.builder().appendOnly(true).start();
        try {
            this.links = new StoreLinks(server.host(), server.port(), nodes);
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
        return List.of(FaultKind.NONE, FaultKind.KILL_NODE, FaultKind.PAUSE_NODE, FaultKind.STORE_RESTART_EMPTY,
                FaultKind.STORE_RESTORE_SNAPSHOT, FaultKind.STORE_TRUNCATED_AOF, FaultKind.STORE_PAUSE,
                FaultKind.STORE_LATENCY, FaultKind.STORE_BLACKHOLE, FaultKind.STORE_RESET);
    }

    @Override
    public String nodeId(int index) {
        return "n" + (index + 1);
    }

    @Override
    public List<String> nodeArgs(int index) {
        return timings.nodeArgs("redis://" + server.host() + ":" + links.port(index), nodeId(index));
    }

    @Override
    public boolean hasItems() {
        return true;
    }

    @Override
    public boolean fencesInStore() {
        return true;
    }

    @Override
    public Duration leaderBound() {
        return timings.leaderBound();
    }

    @Override
    public Duration leaseTtl() {
        return timings.leaseTtl();
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
    public void inject(FaultKind fault, int target, Duration latency) {
        switch (fault) {
            case STORE_RESTART_EMPTY -> server.restartEmpty();
            case STORE_RESTORE_SNAPSHOT -> server.restartFrom(snapshot);
            case STORE_TRUNCATED_AOF -> server.restartWithAofTruncatedTo(aofMark);
            case STORE_PAUSE -> server.pause();
            case STORE_LATENCY -> links.latency(latency);
            case STORE_BLACKHOLE -> links.blackhole(target);
            case STORE_RESET -> links.reset(target);
            default -> throw new IllegalArgumentException("not a Redis fault: " + fault);
        }
    }

    @Override
    public void heal(FaultKind fault) {
        switch (fault) {
            case STORE_PAUSE -> server.resume();
            case STORE_LATENCY, STORE_BLACKHOLE, STORE_RESET -> links.heal();
            default -> { }
        }
    }

    @Override
    public void close() {
        try {
            links.close();
        } finally {
            server.close();
        }
    }
}

package dev.baton.server.chaos;

import dev.baton.testkit.PostgresServer;
import java.time.Duration;
import java.util.List;

/**
 * A private PostgreSQL with every node on its own proxied link. Beside the node and link faults, the database can be
 * killed and restarted (it keeps its data), or restored from a backup of Baton's tables taken before a hand-over: the
 * fault that would let a database issue a term twice.
 */
final class PostgresTarget implements ChaosTarget {

    /** The schema Baton's store creates by default. */
    private static final String SCHEMA = "baton";

    private final PostgresServer server;
    private final StoreLinks links;
    private final StoreTimings timings;
    private PostgresServer.SchemaSnapshot backup;

    PostgresTarget(int nodes, StoreTimings timings) {
        this.timings = timings;
        this.server = PostgresServer.start();
        try {
            this.links = new StoreLinks(server.host(), server.port(), nodes);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    @Override
    public String name() {
        return "postgresql";
    }

    @Override
    public List<FaultKind> faults() {
        return List.of(FaultKind.NONE, FaultKind.KILL_NODE, FaultKind.PAUSE_NODE, FaultKind.STORE_RESTART,
                FaultKind.STORE_RESTORE_BACKUP, FaultKind.STORE_PAUSE, FaultKind.STORE_LATENCY,
                FaultKind.STORE_BLACKHOLE, FaultKind.STORE_RESET);
    }

    @Override
    public String nodeId(int index) {
        return "n" + (index + 1);
    }

    @Override
    public List<String> nodeArgs(int index) {
        String uri = server.uri().replace(":" + server.port() + "/", ":" + links.port(index) + "/");
        return timings.nodeArgs(uri, nodeId(index));
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
        if (fault == FaultKind.STORE_RESTORE_BACKUP) {
            backup = server.snapshotSchema(SCHEMA);
        }
    }

    @Override
    public void inject(FaultKind fault, int target, Duration latency) {
        switch (fault) {
            case STORE_RESTART -> {
                server.kill();
                server.restart();
            }
            case STORE_RESTORE_BACKUP -> server.restoreSchema(backup);
            case STORE_PAUSE -> server.pause();
            case STORE_LATENCY -> links.latency(latency);
            case STORE_BLACKHOLE -> links.blackhole(target);
            case STORE_RESET -> links.reset(target);
            default -> throw new IllegalArgumentException("not a PostgreSQL fault: " + fault);
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

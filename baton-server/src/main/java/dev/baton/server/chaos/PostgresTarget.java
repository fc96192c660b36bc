package dev.baton.server.chaos;

import dev.baton.testkit.PostgresServer;
import dev.baton.testkit.StoreClock;
import java.util.List;
import java.util.Optional;

/**
 * A private PostgreSQL with every node on its own proxied link. Beside the node and link faults, the database can be
 * killed and restarted (it keeps its data), or restored from a backup of Baton's tables taken before a hand-over: the
 * fault that would let a database issue a term twice. Started on a steppable clock, its wall clock (which ends leases:
 * {@code expires_at <= now()}) can be stepped and skewed.
 */
final class PostgresTarget extends StoreTarget {

    /** The schema Baton's store creates by default. */
    private static final String SCHEMA = "baton";
    static final List<FaultKind> FAULTS = withCommonFaults(FaultKind.STORE_RESTART,
            FaultKind.STORE_RESTORE_BACKUP);

    private final PostgresServer server;
    private final ServerClock clock;
    private PostgresServer.SchemaSnapshot backup;

    PostgresTarget(int nodes, StoreTimings timings, ServerClock clock) {
        super(timings);
        this.clock = clock;
        PostgresServer.Builder builder = PostgresServer.builder();
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
        return "postgresql";
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
        return server.uri().replace(":" + server.port() + "/", ":" + proxyPort + "/");
    }

    @Override
    public void prepare(FaultKind fault) {
        if (fault == FaultKind.STORE_RESTORE_BACKUP) {
            backup = server.snapshotSchema(SCHEMA);
        }
    }

    @Override
    void injectServerFault(FaultKind fault) {
        switch (fault) {
            case STORE_RESTART -> {
                server.kill();
                server.restart();
            }
            case STORE_RESTORE_BACKUP -> server.restoreSchema(backup);
            default -> throw new IllegalArgumentException("not a PostgreSQL fault: " + fault);
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

package dev.baton.bench.failover;

import dev.baton.postgres.PostgresStore;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.PostgresStandbyTopology;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * PostgreSQL with a streaming standby ({@link PostgresStandbyTopology}), reached through a multi-host URI, primary
 * first. Its failover is a SIGKILL of the primary and {@code pg_promote()} of the standby at once (the scenario is the
 * failover manager, with no detection delay of its own). The nodes follow through pgjdbc, which keeps only a
 * connection to the server that accepts writes.
 *
 * <p>The two hosts of the URI are loopback proxies, one per server, because a promoted standby has no standby of its
 * own: {@link #restore()} points them at a fresh pair (built in the background after the failover, with Baton's
 * schema), and the nodes elect again there.
 */
final class StandbyPostgresTopology implements StoreTopology {

    private static final String HOST = "127.0.0.1";

    private final String password = UUID.randomUUID().toString().replace("-", "");
    private PostgresStandbyTopology pair;
    private final FaultProxy toPrimary;
    private final FaultProxy toStandby;
    private CompletableFuture<PostgresStandbyTopology> spare;

    private StandbyPostgresTopology() {
        pair = freshPair();
        toPrimary = FaultProxy.start(HOST, pair.primary().port());
        toStandby = FaultProxy.start(HOST, pair.standbyPort());
    }

    static StoreTopology start() {
        return new StandbyPostgresTopology();
    }

    @Override
    public String name() {
        return "postgresql-standby";
    }

    @Override
    public String describe() {
        return "PostgreSQL with one streaming (asynchronous) standby, multi-host URI";
    }

    @Override
    public String failoverNote() {
        return "SIGKILL of the primary; the standby promoted at once (pg_promote)";
    }

    @Override
    public String uri() {
        return "postgresql://" + pair.user() + ":" + password + "@" + HOST + ":" + toPrimary.port() + "," + HOST + ":"
                + toStandby.port() + "/" + pair.database();
    }

    @Override
    public void killPrimary() {
        pair.killPrimary();
        // The dead server's port is free, and a pair started later may be given it: refuse, as the dead server does.
        toPrimary.reset();
    }

    @Override
    public void recover() {
        pair.promoteStandby();
        spare = CompletableFuture.supplyAsync(this::freshPair);
    }

    @Override
    public void restore() {
        if (spare == null) {
            return;
        }
        PostgresStandbyTopology next = spare.join();
        spare = null;
        PostgresStandbyTopology old = pair;
        pair = next;
        toPrimary.retarget(HOST, next.primary().port());
        toStandby.retarget(HOST, next.standbyPort());
        toPrimary.pass();
        old.close();
    }

    @Override
    public void close() {
        toPrimary.close();
        toStandby.close();
        pair.close();
        if (spare != null) {
            spare.thenAccept(PostgresStandbyTopology::close);
        }
    }

    private PostgresStandbyTopology freshPair() {
        PostgresStandbyTopology started = PostgresStandbyTopology.start(password);
        try (PostgresStore schema = PostgresStore.connect(started.primary().uri())) {
            return started;
        } catch (RuntimeException e) {
            started.close();
            throw e;
        }
    }
}

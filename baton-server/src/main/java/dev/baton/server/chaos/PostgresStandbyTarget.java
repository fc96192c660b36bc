package dev.baton.server.chaos;

import dev.baton.postgres.PostgresStore;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.PostgresStandbyTopology;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.LockSupport;

/**
 * A private PostgreSQL primary with a streaming standby ({@link PostgresStandbyTopology}), which every node reaches
 * through a multi-host URI, primary first ({@code postgresql://…@A,B/baton}): pgjdbc keeps a connection only to the
 * server that accepts writes, so the nodes follow a promotion on their own. Beside the node faults, the primary is
 * killed and the standby promoted (the harness plays the failover manager), either up to date or after it stopped
 * receiving WAL while the lease changed hands on the primary.
 *
 * <p>A promoted standby has no standby of its own, and the testkit cannot turn the killed primary into one, so the
 * next trial that needs a failover first moves the nodes to a fresh pair, which was built in the background meanwhile.
 * Each node's two hosts are its own loopback proxies, one per server, which then point at the fresh pair and reset
 * their connections; the fresh pair has Baton's schema already, and its terms (from the database clock) are above
 * every earlier one. The harness waits for a leader elected on the fresh pair before such a trial starts.
 */
final class PostgresStandbyTarget extends ReplicatedStoreTarget {

    private static final Set<FaultKind> FAILOVERS = EnumSet.of(FaultKind.STANDBY_PROMOTED,
            FaultKind.LAGGING_STANDBY_PROMOTED);
    static final List<FaultKind> FAULTS = List.of(FaultKind.NONE, FaultKind.KILL_NODE, FaultKind.PAUSE_NODE,
            FaultKind.STANDBY_PROMOTED, FaultKind.LAGGING_STANDBY_PROMOTED);
    private static final String HOST = "127.0.0.1";
    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    private static final Duration STREAMING_STOPS = Duration.ofSeconds(30);
    private static final int LOGIN_TIMEOUT_SECONDS = 5;

    private final String password = password();
    private final List<FaultProxy> toPrimary = new ArrayList<>();
    private final List<FaultProxy> toStandby = new ArrayList<>();
    private PostgresStandbyTopology pair;
    private boolean promoted;
    private CompletableFuture<PostgresStandbyTopology> spare;

    PostgresStandbyTarget(int nodes, StoreTimings timings) {
        super("postgresql-standby", FAULTS, timings);
        this.pair = freshPair();
        try {
            for (int i = 0; i < nodes; i++) {
                toPrimary.add(FaultProxy.start(HOST, pair.primary().port()));
                toStandby.add(FaultProxy.start(HOST, pair.standbyPort()));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override
    String storeUri(int index) {
        return "postgresql://" + pair.user() + ":" + password + "@" + HOST + ":" + toPrimary.get(index).port()
                + "," + HOST + ":" + toStandby.get(index).port() + "/" + pair.database();
    }

    /** Moves the nodes to the fresh pair when a failover is next and the standby of the current one was promoted. */
    @Override
    public boolean beforeTrial(FaultKind fault) {
        if (!promoted || !FAILOVERS.contains(fault)) {
            return false;
        }
        PostgresStandbyTopology next;
        try {
            next = spare.join();
        } catch (CompletionException e) {
            throw new IllegalStateException("the next primary and standby did not start: " + e.getCause().getMessage(),
                    e.getCause());
        }
        spare = null;
        PostgresStandbyTopology old = pair;
        pair = next;
        promoted = false;
        toPrimary.forEach(proxy -> proxy.retarget(HOST, next.primary().port()));
        toStandby.forEach(proxy -> proxy.retarget(HOST, next.standbyPort()));
        toPrimary.forEach(FaultProxy::pass);
        old.close();
        return true;
    }

    /** The standby stops receiving WAL: what the primary commits from now on, the standby never has. */
    @Override
    public void prepare(FaultKind fault) {
        if (fault == FaultKind.LAGGING_STANDBY_PROMOTED) {
            onStandby("ALTER SYSTEM SET primary_conninfo = ''");
            onStandby("SELECT pg_reload_conf()");
            long deadline = System.nanoTime() + STREAMING_STOPS.toNanos();
            while (!Long.valueOf(0).equals(onStandby("SELECT count(*) FROM pg_stat_wal_receiver"))) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("the standby's WAL receiver did not stop within "
                            + STREAMING_STOPS.toSeconds() + " s");
                }
                LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
            }
        }
    }

    /**
     * Kills the primary (SIGKILL of every backend process): the nodes' calls fail until the standby is promoted. The
     * links to it then refuse connections for good, as the dead server does: its port is free, and a pair started
     * later may be given it.
     */
    @Override
    public void inject(FaultKind fault, int target, Duration latency) {
        if (!FAILOVERS.contains(fault)) {
            throw new IllegalArgumentException("not a PostgreSQL standby fault: " + fault);
        }
        pair.killPrimary();
        toPrimary.forEach(FaultProxy::reset);
    }

    /** Promotes the standby, then starts building the pair the next failover trial will move to. */
    @Override
    public void heal(FaultKind fault) {
        pair.promoteStandby();
        promoted = true;
        spare = CompletableFuture.supplyAsync(this::freshPair);
    }

    @Override
    public void close() {
        try {
            toPrimary.forEach(FaultProxy::close);
            toStandby.forEach(FaultProxy::close);
        } finally {
            try {
                if (pair != null) {
                    pair.close();
                }
            } finally {
                if (spare != null) {
                    spare.thenAccept(PostgresStandbyTopology::close);
                }
            }
        }
    }

    /** A primary and a streaming standby with the run's password, and Baton's schema created (and replicated). */
    private PostgresStandbyTopology freshPair() {
        PostgresStandbyTopology started = PostgresStandbyTopology.start(password);
        try (PostgresStore store = PostgresStore.connect(started.primary().uri())) {
            return started;
        } catch (RuntimeException e) {
            started.close();
            throw e;
        }
    }

    private Object onStandby(String sql) {
        DriverManager.setLoginTimeout(LOGIN_TIMEOUT_SECONDS);
        try (Connection connection = DriverManager.getConnection(pair.standbyJdbcUrl(), pair.user(), password);
                Statement statement = connection.createStatement()) {
            if (!statement.execute(sql)) {
                return null;
            }
            try (ResultSet rows = statement.getResultSet()) {
                return rows.next() ? rows.getObject(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " on the standby failed: " + e.getMessage(), e);
        }
    }

    private static String password() {
        SecureRandom random = new SecureRandom();
        StringBuilder chosen = new StringBuilder();
        for (int i = 0; i < 24; i++) {
            chosen.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return chosen.toString();
    }
}

package dev.baton.server.chaos;

import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.RedisSentinelTopology;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Redis Sentinel with a zombie primary ({@code --backend redis-sentinel-zombie}): the deployment of the
 * {@code redis-sentinel} target (one primary, two replicas, three Sentinels), where node {@code n1} stands for a client
 * on the primary's side of a network partition. The other nodes connect with the {@code redis-sentinel://} URI;
 * {@code n1} reaches the primary over its own loopback {@link FaultProxy}, logged in as a user of its own, and keeps
 * whatever connection that link gives it, as a client cut off from the Sentinels keeps its connection to the primary
 * it knew.
 *
 * <p>The nemesis ({@link FaultKind#SENTINEL_ZOMBIE_PRIMARY}) partitions the primary from the Sentinels, the replicas
 * and every other client while {@code n1} still reaches it: the primary stops letting the default user log in and
 * drops its connections, so the Sentinels' pings go unanswered (they see the primary down after 1 s and promote a
 * replica), the replicas cannot resynchronise, and the other nodes follow the Sentinels to the new primary. The old
 * primary runs on, accepting {@code n1}'s renewals, acquisitions and fenced writes, until two leases after the new
 * primary was promoted; then {@code n1}'s link is cut, the old primary shot (SIGKILL) and restarted empty as a replica
 * of the new primary, and {@code n1}'s link pointed at the new primary. Two leaders, one on each primary, are what
 * the fault is for: the checkers say whether a term was issued twice or a stale fenced write accepted.
 */
final class SentinelZombieTarget extends ReplicatedStoreTarget {

    static final List<FaultKind> FAULTS = List.of(FaultKind.NONE, FaultKind.KILL_NODE, FaultKind.PAUSE_NODE,
            FaultKind.SENTINEL_ZOMBIE_PRIMARY);
    /** The user {@code n1} logs in as, which the partition leaves alone. */
    private static final String ZOMBIE_USER = "baton-zombie-side";
    private static final int ADMIN_TIMEOUT_MILLIS = 5_000;

    private final RedisSentinelTopology redis;
    private final ChaosRunSettings.SentinelSettings settings;
    private final String password = UUID.randomUUID().toString().replace("-", "");
    private final FaultProxy zombieLink;
    private InetSocketAddress primaryBefore;
    private long lastFailover;

    SentinelZombieTarget(StoreTimings timings) {
        this(timings, ChaosRunSettings.SentinelSettings.defaults());
    }

    /**
     * With {@code settings}' {@code --wait-replicas}, every node's store (n1's direct link too) waits for replicas and
     * the data nodes refuse writes without them, as on {@code redis-sentinel}.
     */
    SentinelZombieTarget(StoreTimings timings, ChaosRunSettings.SentinelSettings settings) {
        super("redis-sentinel-zombie", FAULTS, timings);
        this.settings = settings;
        this.redis = RedisSentinelTarget.startTopology(settings);
        try {
            for (int node = 0; node < redis.nodeAddresses().size(); node++) {
                addZombieUser(node);
            }
            InetSocketAddress primary = redis.primary();
            this.zombieLink = FaultProxy.start(primary.getHostString(), primary.getPort());
        } catch (RuntimeException e) {
            redis.close();
            throw e;
        }
    }

    /** {@code n1} (index 0) on its own link to the primary; the others through the Sentinels. */
    @Override
    String storeUri(int index) {
        if (index == 0) {
            return "redis://" + ZOMBIE_USER + ":" + password + "@" + zombieLink.host() + ":" + zombieLink.port()
                    + RedisSentinelTarget.waitParameters(settings, '?');
        }
        return redis.sentinelUri() + RedisSentinelTarget.waitParameters(settings, '&');
    }

    /** As the {@code redis-sentinel} target: the Sentinels ready to fail over again. */
    @Override
    public boolean beforeTrial(FaultKind fault) {
        if (fault == FaultKind.SENTINEL_ZOMBIE_PRIMARY) {
            RedisSentinelTarget.readyForFailover(redis, lastFailover);
        }
        return false;
    }

    /** Partitions the primary from everyone but {@code n1}'s user. */
    @Override
    public void inject(FaultKind fault, int target, Duration latency) {
        if (fault != FaultKind.SENTINEL_ZOMBIE_PRIMARY) {
            throw new IllegalArgumentException("not a zombie-primary fault: " + fault);
        }
        primaryBefore = redis.primary();
        // One connection, logged in as the default user before it is switched off: new connections of that user are
        // refused from the first command on, and this one can still drop the ones that were open.
        adminSession(primaryBefore, List.of(
                List.of("ACL", "SETUSER", "default", "off"),
                List.of("CLIENT", "KILL", "USER", "default", "SKIPME", "yes")));
    }

    /**
     * Waits until the Sentinels promoted a replica, leaves the zombie serving {@code n1} for two more leases (the other
     * nodes elect a leader on the new primary meanwhile), then shoots it: SIGKILL, a restart (empty) as a replica of
     * the new primary, and {@code n1}'s link pointed there.
     */
    @Override
    public void heal(FaultKind fault) {
        InetSocketAddress primary = redis.awaitNewPrimary(primaryBefore);
        LockSupport.parkNanos(leaseTtl().multipliedBy(2).toNanos());
        int former = redis.nodeAddresses().indexOf(primaryBefore);
        // n1 is refused until its link leads to the new primary: the restarted node is an empty primary for a moment.
        zombieLink.reset();
        redis.killNode(former);
        redis.restartNode(former);
        redis.command(former, "REPLICAOF", primary.getHostString(), Integer.toString(primary.getPort()));
        addZombieUser(former);
        zombieLink.retarget(primary.getHostString(), primary.getPort());
        zombieLink.pass();
        lastFailover = System.nanoTime();
    }

    @Override
    public void close() {
        try {
            zombieLink.close();
        } finally {
            redis.close();
        }
    }

    /** The user {@code n1} logs in as, on data node {@code node}, kept across restarts in its configuration file. */
    private void addZombieUser(int node) {
        redis.command(node, "ACL", "SETUSER", ZOMBIE_USER, "on", ">" + password, "~*", "&*", "+@all");
        redis.command(node, "CONFIG", "REWRITE");
    }

    /**
     * Sends {@code commands} in order on one fresh connection to {@code address} and reads a reply to each; an error
     * reply fails the fault. The testkit's command helper opens a connection per command, which the first command
     * here would lock out.
     */
    private static void adminSession(InetSocketAddress address, List<List<String>> commands) {
        try (Socket socket = new Socket()) {
            socket.connect(address, ADMIN_TIMEOUT_MILLIS);
            socket.setSoTimeout(ADMIN_TIMEOUT_MILLIS);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            for (List<String> command : commands) {
                StringBuilder frame = new StringBuilder("*").append(command.size()).append("\r\n");
                for (String arg : command) {
                    frame.append('$').append(arg.getBytes(StandardCharsets.UTF_8).length).append("\r\n")
                            .append(arg).append("\r\n");
                }
                out.write(frame.toString().getBytes(StandardCharsets.UTF_8));
                out.flush();
                String reply = readLine(in);
                if (reply.startsWith("-")) {
                    throw new IllegalStateException(String.join(" ", command.subList(0, 2)) + " on " + address
                            + " failed: " + reply.substring(1));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot partition the primary " + address, e);
        }
    }

    /** One reply line ({@code +OK}, {@code :3}, {@code -ERR ...}), without its CRLF. */
    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ADMIN_TIMEOUT_MILLIS);
        while (System.nanoTime() < deadline) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed before a reply");
            }
            if (b == '\n') {
                int end = line.length() > 0 && line.charAt(line.length() - 1) == '\r' ? line.length() - 1
                        : line.length();
                return line.substring(0, end);
            }
            line.append((char) b);
        }
        throw new IOException("no whole reply within " + ADMIN_TIMEOUT_MILLIS + " ms");
    }
}

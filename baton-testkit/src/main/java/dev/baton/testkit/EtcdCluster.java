package dev.baton.testkit;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A private three-member etcd cluster for tests: {@code etcd} processes (Debian's {@code etcd-server} package),
 * members 0 to 2, each with its own data directory and client and peer ports on loopback, formed with
 * {@code --initial-cluster}. Raft runs with etcd's default timing (100 ms heartbeats, 1 s election timeout), so a
 * killed leader is replaced within a couple of seconds.
 *
 * <p>Faults: {@link #killMember}, {@link #stopMember}, {@link #pauseMember} (hung), {@link #restartMember} (rejoins
 * with its data), {@link #killLeader()} then {@link #awaitLeader()}. {@link #put} and {@link #get} go through one
 * member's HTTP/JSON gateway, for checks that need no etcd client. The binary is the {@code etcd} on {@code PATH}
 * (or {@code /usr/bin/etcd}); {@link #whyUnavailable()} tells a test to skip when there is none. Everything is
 * stopped and deleted by {@link #close()}, or at JVM exit if a test forgot. Thread-safe.
 *
 * <pre>{@code
 * try (EtcdCluster etcd = EtcdCluster.start()) {
 *     Client client = Client.builder().endpoints(etcd.clientEndpoints().toArray(String[]::new)).build();
 *     ...
 *     int old = etcd.killLeader();
 * }
 * }</pre>
 */
public final class EtcdCluster implements AutoCloseable {

    private static final String EXECUTABLE = "etcd";
    private static final int MEMBERS = 3;
    private static final int MAJORITY = MEMBERS / 2 + 1;
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(30);

    private final Path dir;
    private final EtcdGateway gateway = new EtcdGateway();
    private final List<EtcdMember> members = new ArrayList<>();
    /** Each member's raft id, as {@code /v3/maintenance/status} reports it, by member number. */
    private final Map<String, Integer> memberNumbers = new HashMap<>();
    private boolean closed;

    private EtcdCluster(Path dir) {
        this.dir = dir;
    }

    /** Why a cluster cannot start here ("etcd is not installed ..."), or empty if it can. For a JUnit assumption. */
    public static Optional<String> whyUnavailable() {
        return binary().isPresent() ? Optional.empty()
                : Optional.of("etcd is not installed (not on PATH, no /usr/bin/etcd): install the Debian package "
                        + "etcd-server");
    }

    /**
     * Starts three members together and waits until each reports itself healthy (the cluster has a leader).
     *
     * @throws IllegalStateException if etcd is not installed ({@link #whyUnavailable()}) or the cluster does not
     *                               form within 30 s (with the members' log tails)
     */
    public static EtcdCluster start() {
        Path binary = binary().orElseThrow(() -> new IllegalStateException(whyUnavailable().orElseThrow()));
        // Six ports are picked before any member binds one: another process may take one meanwhile.
        return TopologyLifecycle.start("etcd", "baton-etcd-", EtcdCluster::new, cluster -> cluster.launch(binary),
                TopologyLifecycle::portTaken);
    }

    /** {@code http://127.0.0.1:PORT} of each member's client port, member 0 first. */
    public List<String> clientEndpoints() {
        return members.stream().map(EtcdMember::clientUrl).toList();
    }

    /** {@code http://127.0.0.1:PORT} of member {@code member}'s client port. */
    public String clientEndpoint(int member) {
        return member(member).clientUrl();
    }

    /** Kills member {@code member} with SIGKILL, as a crash. No-op if it is not running. */
    public void killMember(int member) {
        member(member).kill();
    }

    /** Stops member {@code member} gracefully (SIGTERM). No-op if it is not running. */
    public void stopMember(int member) {
        member(member).stop();
    }

    /** Freezes member {@code member} with SIGSTOP: a hung member, which the others replace if it led. */
    public void pauseMember(int member) {
        member(member).pause();
    }

    /** Lets a {@link #pauseMember paused} member run again (SIGCONT). */
    public void resumeMember(int member) {
        member(member).resume();
    }

    /** Starts member {@code member} again with its data directory; it rejoins the cluster and catches up. */
    public void restartMember(int member) {
        requireOpen();
        member(member).restart();
    }

    /** Whether member {@code member}'s process is alive (paused or not). */
    public boolean isMemberRunning(int member) {
        return member(member).isRunning();
    }

    /**
     * The member that leads now: the one that a majority of all three members name as leader in
     * {@code /v3/maintenance/status}.
     *
     * @throws IllegalStateException if no majority names the same running member
     */
    public int leader() {
        Map<Integer, Integer> votes = new HashMap<>();
        for (int i = 0; i < members.size(); i++) {
            if (!members.get(i).isAnswering()) {
                continue;
            }
            try {
                Integer named = memberNumbers.get(gateway.status(members.get(i).clientPort()).leaderId());
                if (named != null && members.get(named).isAnswering() && votes.merge(named, 1, Integer::sum)
                        >= MAJORITY) {
                    return named;
                }
            } catch (IllegalStateException e) {
                // A member that does not answer has no say.
            }
        }
        throw new IllegalStateException("no majority of the etcd members names a running leader: " + votes);
    }

    /** Waits (up to 30 s) until a majority of the members name the same running leader, and returns it. */
    public int awaitLeader() {
        int[] leader = {-1};
        TopologyAwait.until("an etcd leader", SETTLE_TIMEOUT, () -> {
            leader[0] = leader();
            return true;
        }, this::describe);
        return leader[0];
    }

    /** Finds the {@link #leader()} and kills it with SIGKILL; returns its number. */
    public int killLeader() {
        int leader = leader();
        killMember(leader);
        return leader;
    }

    /** Writes {@code key = value} through member {@code member}'s gateway ({@code /v3/kv/put}). */
    public void put(int member, String key, String value) {
        gateway.put(member(member).clientPort(), key, value);
    }

    /** Reads {@code key} through member {@code member}'s gateway, linearizably; empty if it does not exist. */
    public Optional<String> get(int member, String key) {
        return gateway.get(member(member).clientPort(), key);
    }

    /** Stops every member and deletes the directory. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        TopologyLifecycle.stopAndDelete(this, dir, () -> members.forEach(EtcdMember::stop));
    }

    @Override
    public String toString() {
        return "EtcdCluster" + clientEndpoints();
    }

    private void launch(Path binary) {
        // Every port at once, so that no two members are given the same one.
        List<Integer> ports = LoopbackPorts.free(2 * MEMBERS);
        for (int i = 0; i < MEMBERS; i++) {
            Path memberDir = TopologyLifecycle.subdirectory(dir, "member-" + i);
            members.add(new EtcdMember("member-" + i, binary, memberDir, ports.get(2 * i), ports.get(2 * i + 1)));
        }
        String initialCluster = members.stream().map(EtcdMember::initialClusterEntry).collect(Collectors.joining(","));
        String token = "baton-" + UUID.randomUUID();
        members.forEach(member -> member.start(initialCluster, token));
        // A member that exits (its port taken meanwhile) ends the wait at once, and the check after it says why.
        TopologyAwait.until("the etcd members to form a cluster", SETTLE_TIMEOUT,
                () -> members.stream().anyMatch(m -> !m.isRunning())
                        || members.stream().allMatch(m -> gateway.isHealthy(m.clientPort())),
                this::describe);
        members.forEach(EtcdMember::requireAlive);
        for (int i = 0; i < MEMBERS; i++) {
            memberNumbers.put(gateway.status(members.get(i).clientPort()).memberId(), i);
        }
    }

    /** Each member's state and log tail, for timeout messages. */
    private String describe() {
        return IntStream.range(0, members.size()).mapToObj(i -> {
            EtcdMember member = members.get(i);
            String state = !member.isRunning() ? "down" : !member.isAnswering() ? "paused"
                    : gateway.isHealthy(member.clientPort()) ? "healthy" : "unhealthy";
            return "member " + i + " " + state + "; log tail:\n" + member.logTail();
        }).collect(Collectors.joining("\n"));
    }

    private EtcdMember member(int member) {
        if (member < 0 || member >= members.size()) {
            throw new IllegalArgumentException("member must be between 0 and " + (MEMBERS - 1) + ", was " + member);
        }
        return members.get(member);
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("EtcdCluster is closed");
        }
    }

    private static Optional<Path> binary() {
        List<String> dirs = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            dirs.addAll(List.of(path.split(File.pathSeparator)));
        }
        dirs.add("/usr/bin");
        return dirs.stream().filter(d -> !d.isEmpty()).map(d -> Path.of(d, EXECUTABLE))
                .filter(p -> Files.isRegularFile(p) && Files.isExecutable(p)).findFirst();
    }
}

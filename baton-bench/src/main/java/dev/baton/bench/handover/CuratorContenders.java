package dev.baton.bench.handover;

import dev.baton.bench.support.PeerVersions;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;

/**
 * Curator's {@link LeaderLatch} (ZooKeeper ephemeral sequential nodes and a watch on the predecessor) as three
 * contenders: three {@link CuratorFramework} clients against an in-process ZooKeeper
 * ({@link TestingServer} from curator-test). t0 is taken before {@code latch.close()}, t1 in the next leader's
 * {@code isLeader()} callback; the closed latch is replaced by a new one on the same client.
 */
public final class CuratorContenders implements Contenders {

    private static final int CONTENDERS = 3;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(10);

    private final CuratorFramework[] clients = new CuratorFramework[CONTENDERS];
    private final LeaderLatch[] latches = new LeaderLatch[CONTENDERS];
    private final String path;
    private TestingServer zookeeper;
    private LeaderSink sink;

    /** Contenders for a latch at {@code /<name>}. */
    public CuratorContenders(String name) {
        this.path = "/" + name;
    }

    @Override
    public String name() {
        return "Curator LeaderLatch " + PeerVersions.curator();
    }

    @Override
    public String note() {
        return "in-process ZooKeeper, t1 in isLeader()";
    }

    @Override
    public void start(LeaderSink leaderSink) throws Exception {
        this.sink = leaderSink;
        zookeeper = new TestingServer(true);
        for (int i = 0; i < CONTENDERS; i++) {
            clients[i] = CuratorFrameworkFactory.newClient(zookeeper.getConnectString(), new RetryOneTime(100));
            clients[i].start();
            if (!clients[i].blockUntilConnected((int) READY_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("Curator client " + i + " did not connect to " + zookeeper);
            }
        }
        clients[0].createContainers(path);
        for (int i = 0; i < CONTENDERS; i++) {
            latches[i] = newLatch(i);
        }
        awaitParticipants();
    }

    private LeaderLatch newLatch(int contender) throws Exception {
        LeaderLatch latch = new LeaderLatch(clients[contender], path, "contender-" + contender);
        latch.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                sink.acquired(contender);
            }

            @Override
            public void notLeader() {
            }
        });
        latch.start();
        return latch;
    }

    @Override
    public void release(int contender) throws IOException {
        sink.releasing();
        latches[contender].close();
    }

    @Override
    public void rejoin(int contender) throws Exception {
        latches[contender] = newLatch(contender);
        awaitParticipants();
    }

    /** Waits until all three latches have their node in ZooKeeper, i.e. all three are in the queue. */
    private void awaitParticipants() throws Exception {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (clients[0].getChildren().forPath(path).size() < CONTENDERS) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("fewer than " + CONTENDERS + " LeaderLatch participants");
            }
            Thread.sleep(1);
        }
    }

    @Override
    public void close() {
        for (LeaderLatch latch : latches) {
            if (latch != null && latch.getState() == LeaderLatch.State.STARTED) {
                try {
                    latch.close();
                } catch (IOException e) {
                    // Closing the client below removes its nodes anyway.
                }
            }
        }
        for (CuratorFramework client : clients) {
            if (client != null) {
                client.close();
            }
        }
        if (zookeeper != null) {
            try {
                zookeeper.close();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException("could not stop the in-process ZooKeeper", e);
            }
        }
    }
}

package dev.baton.examples;

import dev.baton.core.ElectionEvent;
import dev.baton.peer.bully.Bully;
import dev.baton.peer.bully.BullyConfig;
import dev.baton.peer.bully.BullyElection;
import dev.baton.peer.bully.FileLeaderStore;
import dev.baton.peer.transport.PeerAddress;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * A node of the serverless bully election for {@link ShutdownHandoverTest}, built with the library's default
 * shutdown behaviour and printing the same lines as {@link LeaderOnlyScheduler}. Arguments: the loopback port to
 * listen on, the leader-record file, the group.
 */
public final class BullyNodeMain {

    private BullyNodeMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        String group = args[2];
        try (FileLeaderStore store = new FileLeaderStore(Path.of(args[1]));
             BullyElection election = Bully.tcp(PeerAddress.parse("127.0.0.1:" + args[0]))
                     .group(group)
                     .config(BullyConfig.fast().build())
                     .leaderStore(store)
                     .build()) {
            election.addListener(event -> {
                if (event instanceof ElectionEvent.LeadershipAcquired acquired) {
                    System.out.println("leader of " + group + " with term " + acquired.term());
                } else if (event instanceof ElectionEvent.LeadershipLost lost) {
                    System.out.println("no longer leader (term " + lost.term() + ", " + lost.reason() + ")");
                } else if (event instanceof ElectionEvent.LeaderChanged changed) {
                    changed.leader().ifPresent(leader ->
                            System.out.println("leader is " + leader.nodeId() + " (term " + leader.term() + ")"));
                }
            });
            System.out.println("node " + election.nodeId() + " joining " + group);
            election.start();
            new CountDownLatch(1).await();
        }
    }
}

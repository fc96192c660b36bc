package dev.baton.bench.scale;

import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent;
import dev.baton.core.NodeInfo;
import dev.baton.core.store.CoordinationStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Baton elections, one per group, all built on the same store as a user would: {@code Baton.election(store)
 * .group(name).node(node).build()} with one node for the whole set (one process) and the default timings, then
 * {@code start()}. Leadership is taken from the
 * {@code LeadershipAcquired} listener; the groups are given up with {@code closeAsync()} on each.
 */
final class BatonGroups implements GroupClient {

    private static final ElectionConfig CONFIG = ElectionConfig.defaults();

    private final CoordinationStore store;

    BatonGroups(CoordinationStore store) {
        this.store = store;
    }

    @Override
    public GroupSet open(String prefix, int n, String node) {
        // One node for the whole set, as one process is one node: its elections share the store session.
        return new Elections(store, prefix, n, NodeInfo.create(node), new ArrayList<>());
    }

    @Override
    public String timings() {
        return "ElectionConfig.defaults(): lease TTL " + CONFIG.leaseTtl().toSeconds() + " s, renewed every "
                + CONFIG.renewInterval().toSeconds() + " s, followers check every "
                + CONFIG.checkInterval().toSeconds() + " s, registry heartbeat every "
                + CONFIG.processHeartbeatInterval().toSeconds() + " s";
    }

    @Override
    public Duration leaseTtl() {
        return CONFIG.leaseTtl();
    }

    @Override
    public Duration renewInterval() {
        return CONFIG.renewInterval();
    }

    @Override
    public void close() {
        store.close();
    }

    private record Elections(CoordinationStore store, String prefix, int n, NodeInfo node, List<Election> elections)
            implements GroupSet {

        @Override
        public List<CompletableFuture<Long>> start() {
            return GroupSet.startEach(prefix, n, group -> {
                Election election = Baton.election(store).group(group).node(node).build();
                CompletableFuture<Long> acquired = new CompletableFuture<>();
                election.addListener(event -> {
                    if (event instanceof ElectionEvent.LeadershipAcquired) {
                        acquired.complete(System.nanoTime());
                    }
                });
                elections.add(election);
                election.start();
                return acquired;
            });
        }

        @Override
        public CompletableFuture<Void> contending() {
            return CompletableFuture.allOf(elections.stream().map(Election::whenElected)
                    .toArray(CompletableFuture[]::new));
        }

        @Override
        public CompletableFuture<Void> closeAll() {
            return CompletableFuture.allOf(elections.stream().map(Election::closeAsync)
                    .toArray(CompletableFuture[]::new));
        }

        @Override
        public int stillHeld() throws Exception {
            int held = 0;
            for (Election election : elections) {
                if (store.leases().read(election.group()).get(5, TimeUnit.SECONDS).isPresent()) {
                    held++;
                }
            }
            return held;
        }
    }
}

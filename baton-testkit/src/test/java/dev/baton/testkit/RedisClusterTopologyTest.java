package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Three masters and three replicas in cluster mode, started privately; the test takes a few seconds. */
@Timeout(60)
class RedisClusterTopologyTest {

    private static final Duration PROBE = Duration.ofMillis(500);
    private static final Duration GENEROUS = Duration.ofSeconds(20);
    private static final String KEY = "baton:leader";

    @Test
    void aKeyMovesBetweenMastersAndIsServedAgainAfterItsMasterIsKilled() {
        List<InetSocketAddress> seeds;
        try (RedisClusterTopology cluster = RedisClusterTopology.start()) {
            seeds = cluster.seedAddresses();
            assertThat(seeds).hasSize(6);
            assertThat(cluster.seedUris().get(0)).isEqualTo("redis://127.0.0.1:" + seeds.get(0).getPort());
            int slot = cluster.slotOf(KEY);
            int master = cluster.masterOf(KEY);
            assertThat(master).isBetween(0, 2);
            assertThat(cluster.command(master, "SET", KEY, "v1")).isEqualTo("OK");
            // Each command runs on a connection of its own, so WAIT would count no write: compare offsets instead.
            cluster.awaitReplicated(master);
            int target = (master + 1) % 3;
            assertThatThrownBy(() -> cluster.command(target, "GET", KEY)).hasMessageContaining("MOVED " + slot);

            // Half-way through a move the source redirects with ASK for keys it no longer holds.
            RedisClusterTopology.SlotMigration migration = cluster.beginSlotMigration(KEY, target);
            assertThat(migration.slot()).isEqualTo(slot);
            migration.moveKeys();
            assertThatThrownBy(() -> cluster.command(master, "GET", KEY)).hasMessageContaining("ASK " + slot);
            migration.finish();

            assertThat(cluster.masterOf(KEY)).isEqualTo(target);
            assertThat(cluster.command(target, "GET", KEY)).isEqualTo("v1");
            assertThatThrownBy(() -> cluster.command(master, "GET", KEY)).hasMessageContaining("MOVED " + slot);
            cluster.awaitReplicated(target);

            cluster.killNode(target);
            int replacement = cluster.awaitFailover(target);

            assertThat(replacement).isEqualTo(target + 3);
            assertThat(cluster.isMaster(replacement)).isTrue();
            assertThat(cluster.masterOf(KEY)).isEqualTo(replacement);
            assertThat(cluster.command(replacement, "GET", KEY)).isEqualTo("v1");
            assertThat(cluster.command(replacement, "SET", KEY, "v2")).isEqualTo("OK");

            // The replaced master comes back as a replica of its replacement.
            cluster.restartNode(target);
            int replacementPort = seeds.get(replacement).getPort();
            await().atMost(GENEROUS).ignoreExceptions().until(() -> !cluster.isMaster(target)
                    && String.valueOf(cluster.command(target, "INFO", "replication"))
                            .contains("master_port:" + replacementPort + "\r\nmaster_link_status:up"));
        }
        assertThat(seeds).noneMatch(address -> RespProbe.ping(address.getHostString(), address.getPort(), PROBE));
    }

    @Test
    void aManualFailoverSwapsAMasterAndItsReplicaAndAPausedReplicaFallsBehind() {
        try (RedisClusterTopology cluster = RedisClusterTopology.start()) {
            int master = cluster.masterOf(KEY);
            int replica = cluster.replicaOf(master);
            assertThat(replica).isEqualTo(master + 3);
            assertThat(cluster.command(master, "SET", KEY, "v1")).isEqualTo("OK");
            cluster.awaitReplicated(master);

            assertThat(cluster.failover(replica)).isEqualTo(master);
            assertThat(cluster.masterOf(KEY)).isEqualTo(replica);
            assertThat(cluster.command(replica, "GET", KEY)).isEqualTo("v1");
            assertThat(cluster.replicaOf(replica)).isEqualTo(master);
            cluster.awaitReplicaInSync(master);
            assertThatThrownBy(() -> cluster.failover(replica)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is a master");

            cluster.pauseReplication(master);
            assertThat(cluster.command(replica, "SET", KEY, "v2")).isEqualTo("OK");
            assertThat(cluster.command(replica, "WAIT", "1", "300")).isEqualTo(0L);
            cluster.resumeReplication(master);
            await().atMost(GENEROUS).until(() -> cluster.command(replica, "WAIT", "1", "300").equals(1L));
        }
    }
}

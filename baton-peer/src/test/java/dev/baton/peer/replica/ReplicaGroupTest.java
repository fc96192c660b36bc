package dev.baton.peer.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.baton.peer.transport.PeerAddress;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How a serverless election's group counts a majority, and how a member advertises its store. */
class ReplicaGroupTest {

    @Test
    void theQuorumProtocolsMajorityIsOfTheConfiguredClusterSizeWhoeverIsUp() {
        ReplicaGroup group = ReplicaGroup.of(null, 3);

        assertThat(group.majority(1)).isEqualTo(2);
        assertThat(group.majority(3)).isEqualTo(2);
        assertThat(ReplicaGroup.of(null, 5).majority(2)).isEqualTo(3);
        assertThat(group.size(1)).isEqualTo(3);
        assertThat(ReplicaGroup.of(null, 4).size(5)).isEqualTo(4);
    }

    @Test
    void withoutAConfiguredSizeTheMajorityIsOfTheMembersKnownNow() {
        ReplicaGroup group = ReplicaGroup.of(null, 0);

        assertThat(group.majority(0)).isEqualTo(1);
        assertThat(group.majority(1)).isEqualTo(1);
        assertThat(group.majority(3)).isEqualTo(2);
        assertThat(group.majority(4)).isEqualTo(3);
        assertThat(group.size(0)).isEqualTo(1);
        assertThat(group.size(4)).isEqualTo(4);
    }

    @Test
    void aNegativeClusterSizeIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> ReplicaGroup.of(null, -1))
                .withMessageContaining("clusterSize");
    }

    @Test
    void aMemberAdvertisesItsStoreBesideItsOtherMetadata() {
        Map<String, String> metadata = ReplicaGroup.advertise(Map.of("zone", "a"), PeerAddress.of("10.0.0.5", 7411));

        assertThat(metadata).containsEntry("zone", "a").containsEntry(ReplicaGroup.ADDRESS_KEY, "10.0.0.5:7411");
    }
}

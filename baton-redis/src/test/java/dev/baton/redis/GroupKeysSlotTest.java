package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.redis.internal.GroupKeys;
import dev.baton.redis.internal.SessionKeys;
import io.lettuce.core.cluster.SlotHash;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every key and notice channel of a group hashes to the group's one Redis Cluster slot, so each script (which may
 * touch any of them) runs on one node, and the work cluster's maps (fenced maps of the group) live there too. So does
 * the copy a session keeps in the group's slot on a cluster.
 */
class GroupKeysSlotTest {

    @Test
    void everyKeyAndNoticeChannelOfAGroupSharesTheGroupsSlot() {
        for (String prefix : List.of("", "app:", "a:b:")) {
            SessionKeys sessions = new SessionKeys(prefix, true);
            for (String group : List.of("orders-scheduler", "g", "with:colons", "with space")) {
                GroupKeys k = GroupKeys.of(prefix, group);
                int slot = SlotHash.getSlot(prefix + group);
                List<String> names = List.of(k.master(), k.masterTerm(), k.heartbeat(), k.masterProcess(), k.term(),
                        k.processes(), k.processesExpiry(), k.fenced("config"), k.fenced("{other}"),
                        k.map("work_items"), k.map("worker:actual_subscriptions"), k.map("worker:assignments"),
                        k.map("worker:connections"), k.map("worker:listeners"), k.events(), k.eventsSeq(),
                        k.leader(), k.noticesChannel(), k.membersChannel(), k.masterSession(), k.sessionMembers(),
                        sessions.sessionIn(k, "5f0c2a9e-session"));
                assertThat(names).as("names of group %s under prefix '%s'", group, prefix)
                        .allSatisfy(name -> assertThat(SlotHash.getSlot(name)).as(name).isEqualTo(slot));
            }
        }
    }
}

package dev.baton.bench.work;

import dev.baton.bench.work.PlannerBalanceScenario.Outcome;
import dev.baton.bench.work.PlannerBalanceScenario.Phase;
import dev.baton.bench.work.PlannerBalanceScenario.Stats;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;

/**
 * Kafka's assignors on the planner-balance items, set up as {@code KafkaAssignorBenchmark} does (homogeneous
 * subscriptions, no racks): the items are the partitions of one topic, the workers the group's members. Kafka's
 * assignors balance partition counts and never see costs, so a cost drift changes the loads but not the assignment;
 * each is run again with the members owning what they were given, and the partitions whose owner changed count as
 * moves.
 */
final class KafkaBalance {

    private static final String TOPIC = "items";
    private static final Uuid TOPIC_ID = new Uuid(0x6261746f6eL, 1);

    /** The assignors compared. */
    enum Assignor {
        RANGE("Kafka RangeAssignor (client)"),
        COOPERATIVE_STICKY("Kafka CooperativeStickyAssignor (client)"),
        UNIFORM("Kafka UniformAssignor (KIP-848, server)");

        final String label;

        Assignor(String label) {
            this.label = label;
        }
    }

    private KafkaBalance() {
    }

    static String workerId(int w) {
        return String.format("ws://worker-%02d", w);
    }

    static String itemId(int i) {
        return "item-" + i;
    }

    static int itemIndex(String item) {
        return Integer.parseInt(item.substring("item-".length()));
    }

    static Outcome run(Assignor assignor, int workers, long[] costs, long[] drifted) {
        int[] placed = settle(assignor, workers, costs.length, null).owner;
        // Costs are not an input: after the drift the members ask again, owning what they were given.
        Settled drift = settle(assignor, workers, costs.length, placed);
        Settled join = settle(assignor, workers + 1, costs.length, drift.owner);
        return new Outcome(Stats.of(loads(placed, workers, costs), costs),
                new Phase(Stats.of(loads(drift.owner, workers, drifted), drifted), drift.rounds, drift.moves),
                new Phase(Stats.of(loads(join.owner, workers + 1, drifted), drifted), join.rounds, join.moves));
    }

    /** Where a rebalance ended: the owners, how many assignments changed something, how many partitions moved. */
    private record Settled(int[] owner, int rounds, long moves) {
    }

    /**
     * Runs the assignor with each member owning what it was given until nothing changes: the cooperative assignor
     * first only revokes a partition that must move and assigns it in the next rebalance.
     */
    private static Settled settle(Assignor assignor, int workers, int partitions, int[] start) {
        int[] current = assign(assignor, workers, partitions, start);
        int rounds = start != null && changed(start, current) > 0 ? 1 : 0;
        for (int round = 0; round < 10; round++) {
            int[] next = assign(assignor, workers, partitions, current);
            if (changed(current, next) == 0) {
                break;
            }
            rounds++;
            current = next;
        }
        return new Settled(current, rounds, start == null ? 0 : changed(start, current));
    }

    /** Per partition, the index of the member that gets it; {@code owned} is the current one (null: none). */
    private static int[] assign(Assignor assignor, int workers, int partitions, int[] owned) {
        int[] owner = new int[partitions];
        java.util.Arrays.fill(owner, -1);
        Map<String, Integer> memberIndex = new HashMap<>();
        for (int w = 0; w < workers; w++) {
            memberIndex.put(workerId(w), w);
        }
        if (assignor == Assignor.UNIFORM) {
            GroupAssignment result = new UniformAssignor().assign(groupSpec(workers, owned), describer(partitions));
            for (Map.Entry<String, MemberAssignment> e : result.members().entrySet()) {
                for (int p : e.getValue().partitions().getOrDefault(TOPIC_ID, Set.of())) {
                    owner[p] = memberIndex.get(e.getKey());
                }
            }
            return owner;
        }
        List<PartitionInfo> infos = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
            infos.add(new PartitionInfo(TOPIC, p, Node.noNode(), new Node[0], new Node[0]));
        }
        Map<String, Subscription> subscriptions = new HashMap<>();
        for (int w = 0; w < workers; w++) {
            List<TopicPartition> ownedByMember = new ArrayList<>();
            if (owned != null) {
                for (int p = 0; p < partitions; p++) {
                    if (owned[p] == w) {
                        ownedByMember.add(new TopicPartition(TOPIC, p));
                    }
                }
            }
            subscriptions.put(workerId(w), new Subscription(List.of(TOPIC), null, ownedByMember,
                    owned == null ? AbstractStickyAssignor.DEFAULT_GENERATION : 1, Optional.empty()));
        }
        Map<String, List<PartitionInfo>> partitionsPerTopic = Map.of(TOPIC, infos);
        Map<String, List<TopicPartition>> result = assignor == Assignor.RANGE
                ? new RangeAssignor().assignPartitions(partitionsPerTopic, subscriptions)
                : new CooperativeStickyAssignor().assignPartitions(partitionsPerTopic, subscriptions);
        result.forEach((member, list) -> list.forEach(tp -> owner[tp.partition()] = memberIndex.get(member)));
        return owner;
    }

    private static GroupSpecImpl groupSpec(int workers, int[] owned) {
        Map<String, MemberSubscriptionAndAssignmentImpl> members = new HashMap<>();
        Map<Integer, String> owners = new HashMap<>();
        for (int w = 0; w < workers; w++) {
            Set<Integer> mine = new HashSet<>();
            if (owned != null) {
                for (int p = 0; p < owned.length; p++) {
                    if (owned[p] == w) {
                        mine.add(p);
                        owners.put(p, workerId(w));
                    }
                }
            }
            members.put(workerId(w), new MemberSubscriptionAndAssignmentImpl(Optional.empty(), Optional.empty(),
                    Set.of(TOPIC_ID), mine.isEmpty() ? Assignment.EMPTY : new Assignment(Map.of(TOPIC_ID, mine))));
        }
        return new GroupSpecImpl(members, SubscriptionType.HOMOGENEOUS,
                owned == null ? Collections.emptyMap() : Map.of(TOPIC_ID, owners));
    }

    private static SubscribedTopicDescriber describer(int partitions) {
        return new SubscribedTopicDescriber() {
            @Override
            public int numPartitions(Uuid topicId) {
                return topicId.equals(TOPIC_ID) ? partitions : -1;
            }

            @Override
            public Set<String> racksForPartition(Uuid topicId, int partition) {
                return Collections.emptySet();
            }
        };
    }

    /** Partitions on another member after than before (one revoked and given out again counts once). */
    private static long changed(int[] before, int[] after) {
        long count = 0;
        for (int p = 0; p < before.length; p++) {
            if (before[p] != after[p]) {
                count++;
            }
        }
        return count;
    }

    private static long[] loads(int[] owner, int workers, long[] costs) {
        long[] loads = new long[workers];
        for (int p = 0; p < owner.length; p++) {
            loads[owner[p]] += costs[p];
        }
        return loads;
    }
}

package dev.baton.bench.jmh.planner;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Kafka's assignors on the inputs of {@link PlannerShape}, beside {@link PlannerBenchmark}: the client-side
 * {@code StickyAssignor} and {@code CooperativeStickyAssignor} ({@code assignPartitions}, the call Kafka's own
 * {@code ClientSideAssignorBenchmark} times) and the server-side {@code UniformAssignor} of KIP-848
 * ({@code assign(GroupSpec, SubscribedTopicDescriber)}, as in Kafka's {@code ServerSideAssignorBenchmark}). Every
 * input (subscriptions with owned partitions, the group spec with current assignments and the partition-to-member
 * map the coordinator keeps) is built in the setup, outside the measured methods. Homogeneous subscriptions, no
 * racks.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
public class KafkaAssignorBenchmark {

    @Param({"100000/1000", "1000000/2000"})
    public String shape;

    private Inputs inputs;

    @Setup(Level.Trial)
    public void setUp() {
        inputs = new Inputs(PlannerShape.parse(shape));
    }

    @Benchmark
    public Map<String, List<TopicPartition>> stickyFullPlan() {
        return new StickyAssignor().assignPartitions(inputs.partitionsPerTopic, inputs.freshSubscriptions);
    }

    @Benchmark
    public Map<String, List<TopicPartition>> cooperativeStickyFullPlan() {
        return new CooperativeStickyAssignor().assignPartitions(inputs.partitionsPerTopic, inputs.freshSubscriptions);
    }

    @Benchmark
    public GroupAssignment uniformFullPlan() {
        return new UniformAssignor().assign(inputs.freshGroup, inputs.describer);
    }

    @Benchmark
    public Map<String, List<TopicPartition>> stickyWorkerLeaves() {
        return new StickyAssignor().assignPartitions(inputs.partitionsPerTopic, inputs.stickyOwnedSubscriptions);
    }

    @Benchmark
    public Map<String, List<TopicPartition>> cooperativeStickyWorkerLeaves() {
        return new CooperativeStickyAssignor().assignPartitions(inputs.partitionsPerTopic, inputs.ownedSubscriptions);
    }

    @Benchmark
    public GroupAssignment uniformWorkerLeaves() {
        return new UniformAssignor().assign(inputs.afterLeaveGroup, inputs.describer);
    }

    /** Kafka's inputs for one shape. */
    public static final class Inputs {

        final PlannerShape shape;
        final List<String> topicNames = new ArrayList<>();
        final Uuid[] topicIds;
        final Map<String, List<PartitionInfo>> partitionsPerTopic = new HashMap<>();
        /** Every member subscribed to every topic, owning nothing. */
        final Map<String, Subscription> freshSubscriptions = new HashMap<>();
        /** Every member but the leaving one, each owning its round-robin partitions. */
        final Map<String, Subscription> ownedSubscriptions = new HashMap<>();
        /**
         * The same for the eager StickyAssignor, which reads a member's previous assignment from the user data its
         * consumer encodes ({@code subscriptionUserData} after {@code onAssignment}), not from the owned partitions.
         */
        final Map<String, Subscription> stickyOwnedSubscriptions = new HashMap<>();
        final GroupSpecImpl freshGroup;
        final GroupSpecImpl afterLeaveGroup;
        final SubscribedTopicDescriber describer;
        /** The round-robin owner per topic index and partition, as member ids. */
        final String[][] owner;

        public Inputs(PlannerShape shape) {
            this.shape = shape;
            int topics = shape.topics;
            int partitions = PlannerShape.PARTITIONS_PER_TOPIC;
            topicIds = new Uuid[topics];
            owner = new String[topics][partitions];
            Map<Uuid, Integer> partitionCounts = new HashMap<>();
            for (int t = 0; t < topics; t++) {
                String topic = shape.topic(t);
                topicNames.add(topic);
                topicIds[t] = new Uuid(0x6261746f6eL, t + 1);
                partitionCounts.put(topicIds[t], partitions);
                List<PartitionInfo> infos = new ArrayList<>(partitions);
                for (int p = 0; p < partitions; p++) {
                    infos.add(new PartitionInfo(topic, p, Node.noNode(), new Node[0], new Node[0]));
                    owner[t][p] = shape.workerId(shape.roundRobinOwner(t, p));
                }
                partitionsPerTopic.put(topic, infos);
            }
            String leaving = shape.workerId(shape.leaving());
            Map<String, List<TopicPartition>> owned = new HashMap<>();
            Map<String, Map<Uuid, Set<Integer>>> ownedById = new HashMap<>();
            Map<Uuid, Map<Integer, String>> partitionOwners = new HashMap<>();
            for (int t = 0; t < topics; t++) {
                Map<Integer, String> owners = new HashMap<>();
                for (int p = 0; p < partitions; p++) {
                    String member = owner[t][p];
                    if (member.equals(leaving)) {
                        continue;
                    }
                    owned.computeIfAbsent(member, m -> new ArrayList<>()).add(new TopicPartition(shape.topic(t), p));
                    ownedById.computeIfAbsent(member, m -> new HashMap<>())
                            .computeIfAbsent(topicIds[t], id -> new HashSet<>()).add(p);
                    owners.put(p, member);
                }
                partitionOwners.put(topicIds[t], owners);
            }
            Set<Uuid> allTopicIds = new HashSet<>(List.of(topicIds));
            Map<String, MemberSubscriptionAndAssignmentImpl> freshMembers = new HashMap<>();
            Map<String, MemberSubscriptionAndAssignmentImpl> remainingMembers = new HashMap<>();
            for (int w = 0; w < shape.workers; w++) {
                String member = shape.workerId(w);
                freshSubscriptions.put(member, new Subscription(topicNames, null, List.of(),
                        AbstractStickyAssignor.DEFAULT_GENERATION, Optional.empty()));
                freshMembers.put(member, new MemberSubscriptionAndAssignmentImpl(Optional.empty(), Optional.empty(),
                        allTopicIds, Assignment.EMPTY));
                if (!member.equals(leaving)) {
                    List<TopicPartition> ownedByMember = owned.getOrDefault(member, List.of());
                    ownedSubscriptions.put(member, new Subscription(topicNames, null, ownedByMember, 1,
                            Optional.empty()));
                    StickyAssignor consumerSide = new StickyAssignor();
                    consumerSide.onAssignment(new ConsumerPartitionAssignor.Assignment(ownedByMember),
                            new ConsumerGroupMetadata("bench", 1, member, Optional.empty()));
                    stickyOwnedSubscriptions.put(member, new Subscription(topicNames,
                            consumerSide.subscriptionUserData(new HashSet<>(topicNames)), ownedByMember, 1,
                            Optional.empty()));
                    remainingMembers.put(member, new MemberSubscriptionAndAssignmentImpl(Optional.empty(),
                            Optional.empty(), allTopicIds, new Assignment(ownedById.getOrDefault(member, Map.of()))));
                }
            }
            freshGroup = new GroupSpecImpl(freshMembers, SubscriptionType.HOMOGENEOUS, Collections.emptyMap());
            afterLeaveGroup = new GroupSpecImpl(remainingMembers, SubscriptionType.HOMOGENEOUS, partitionOwners);
            describer = new SubscribedTopicDescriber() {
                @Override
                public int numPartitions(Uuid topicId) {
                    return partitionCounts.getOrDefault(topicId, -1);
                }

                @Override
                public Set<String> racksForPartition(Uuid topicId, int partition) {
                    return Collections.emptySet();
                }
            };
        }
    }
}

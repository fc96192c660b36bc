package dev.baton.bench.jmh.planner;

import dev.baton.work.plan.Plan;
import dev.baton.work.plan.PlanInput;
import dev.baton.work.plan.Planner;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;

/**
 * The quality beside the speed of {@link PlannerBenchmark} and {@link KafkaAssignorBenchmark}: for the "one worker
 * leaving" case, how many partitions each assignor moved (the optimum is the leaving worker's share, items / W) and
 * how balanced the result is (max − min partitions per member). Prints a markdown table. Run with
 * {@code java -cp baton-bench/target/baton-bench.jar dev.baton.bench.jmh.planner.PlannerMoves [ITEMS/WORKERS ...]}.
 */
public final class PlannerMoves {

    private PlannerMoves() {
    }

    public static void main(String[] args) {
        List<String> shapes = args.length == 0 ? List.of("100000/1000", "1000000/2000") : List.of(args);
        System.out.println("| input | assignor | moves when one worker leaves | optimal | max − min after |");
        System.out.println("| --- | --- | --- | --- | --- |");
        for (String spec : shapes) {
            PlannerShape shape = PlannerShape.parse(spec);
            KafkaAssignorBenchmark.Inputs kafka = new KafkaAssignorBenchmark.Inputs(shape);
            int optimal = shape.items / shape.workers;
            row(shape, "Baton Planner (count)", optimal, () -> batonLeave(shape));
            row(shape, "StickyAssignor", optimal, () -> clientLeave(kafka,
                    new StickyAssignor().assignPartitions(kafka.partitionsPerTopic, kafka.stickyOwnedSubscriptions)));
            row(shape, "CooperativeStickyAssignor", optimal, () -> clientLeave(kafka,
                    new CooperativeStickyAssignor().assignPartitions(kafka.partitionsPerTopic,
                            kafka.ownedSubscriptions)));
            row(shape, "UniformAssignor", optimal, () -> uniformLeave(kafka,
                    new UniformAssignor().assign(kafka.afterLeaveGroup, kafka.describer)));
        }
    }

    /** Moves and spread of one assignor's answer. */
    private record Outcome(long moves, long spread) {
    }

    private static void row(PlannerShape shape, String name, int optimal, Supplier<Outcome> run) {
        Outcome outcome = run.get();
        System.out.printf("| %,d / %,d | %s | %,d | %,d | %d |%n", shape.items, shape.workers, name,
                outcome.moves(), optimal, outcome.spread());
    }

    private static Outcome batonLeave(PlannerShape shape) {
        Planner planner = Planner.defaults();
        Plan balanced = planner.plan(shape.batonRoundRobinInput());
        PlanInput after = balanced.nextInput().withoutWorker(shape.workerId(shape.leaving()));
        Plan plan = planner.plan(after);
        Map<String, Long> loads = new HashMap<>();
        plan.assignment().forEach((item, worker) -> loads.merge(worker, 1L, Long::sum));
        return new Outcome(plan.moveCount(), spread(loads));
    }

    private static Outcome clientLeave(KafkaAssignorBenchmark.Inputs kafka,
            Map<String, List<TopicPartition>> assignment) {
        long moves = 0;
        Map<String, Long> loads = new HashMap<>();
        for (Map.Entry<String, List<TopicPartition>> e : assignment.entrySet()) {
            loads.put(e.getKey(), (long) e.getValue().size());
            for (TopicPartition tp : e.getValue()) {
                int t = Integer.parseInt(tp.topic().substring("topic-".length()));
                if (!kafka.owner[t][tp.partition()].equals(e.getKey())) {
                    moves++;
                }
            }
        }
        return new Outcome(moves, spread(loads));
    }

    private static Outcome uniformLeave(KafkaAssignorBenchmark.Inputs kafka, GroupAssignment assignment) {
        long moves = 0;
        Map<String, Long> loads = new HashMap<>();
        for (Map.Entry<String, MemberAssignment> e : assignment.members().entrySet()) {
            long count = 0;
            for (Map.Entry<Uuid, Set<Integer>> topic : e.getValue().partitions().entrySet()) {
                int t = (int) topic.getKey().getLeastSignificantBits() - 1;
                for (int p : topic.getValue()) {
                    count++;
                    if (!kafka.owner[t][p].equals(e.getKey())) {
                        moves++;
                    }
                }
            }
            loads.put(e.getKey(), count);
        }
        return new Outcome(moves, spread(loads));
    }

    private static long spread(Map<String, Long> loads) {
        long max = loads.values().stream().mapToLong(Long::longValue).max().orElse(0);
        long min = loads.values().stream().mapToLong(Long::longValue).min().orElse(0);
        return max - min;
    }
}

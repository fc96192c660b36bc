package dev.baton.bench.jmh.planner;

import dev.baton.work.plan.Plan;
import dev.baton.work.plan.PlanInput;
import dev.baton.work.plan.Planner;
import dev.baton.work.plan.Worker;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
 * Baton's assignment planner (issue 6) in count mode, on the inputs of {@link PlannerShape}; Kafka's assignors run
 * on the same inputs in {@link KafkaAssignorBenchmark}. {@code fullPlan} plans from no current assignment;
 * {@code workerLeaves} derives the next input from a balanced plan with one worker removed and plans it. The plan is
 * arrays; {@code fullPlanWithMoves} also builds the {@code Move} objects, as a caller reading every move would, and
 * {@code buildInput} is the one-off cost of building an input from strings (sorting and joining the items), which a
 * reconciler pays when the desired items change, not when a worker joins or leaves.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
public class PlannerBenchmark {

    @Param({"100000/1000", "1000000/2000"})
    public String shape;

    private PlannerShape inputs;
    private List<Worker> workers;
    private final Planner planner = Planner.defaults();
    private PlanInput empty;
    private Plan balanced;
    private String leaving;

    @Setup(Level.Trial)
    public void setUp() {
        inputs = PlannerShape.parse(shape);
        workers = inputs.batonWorkers();
        empty = inputs.batonEmptyInput(workers);
        balanced = planner.plan(inputs.batonRoundRobinInput());
        if (balanced.moveCount() != 0) {
            throw new IllegalStateException("the round-robin start is not balanced: " + balanced);
        }
        leaving = inputs.workerId(inputs.leaving());
    }

    @Benchmark
    public Plan fullPlan() {
        return planner.plan(empty);
    }

    @Benchmark
    public int fullPlanWithMoves() {
        return planner.plan(empty).moves().size();
    }

    @Benchmark
    public Plan workerLeaves() {
        return planner.plan(balanced.nextInput().withoutWorker(leaving));
    }

    @Benchmark
    public PlanInput buildInput() {
        return inputs.batonEmptyInput(workers);
    }
}

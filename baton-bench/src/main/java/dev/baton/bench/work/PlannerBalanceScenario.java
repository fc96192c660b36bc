package dev.baton.bench.work;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.work.plan.BalanceMode;
import dev.baton.work.plan.Move;
import dev.baton.work.plan.Plan;
import dev.baton.work.plan.PlanInput;
import dev.baton.work.plan.Planner;
import dev.baton.work.plan.PlannerConfig;
import dev.baton.work.plan.Worker;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The planner's balance on uneven items: 50 workers, items whose costs follow a Pareto or a log-normal distribution
 * (seeded), placed from nothing, replanned until no move is left after a tenth of the items change cost, and again
 * after a worker joins. Load mode (10% band, 64 moves per plan) against count mode, weighted mode and Kafka's
 * assignors ({@link KafkaBalance}) on the same items: the largest worker load over the mean, and the moves made.
 */
public final class PlannerBalanceScenario implements Scenario {

    static final int WORKERS = 50;
    private static final int MAX_ROUNDS = 200;

    @Override
    public String name() {
        return "planner-balance";
    }

    @Override
    public String description() {
        return "planner load vs count vs weighted mode vs Kafka's assignors: max/mean load on Pareto-cost items";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) {
        out.println("## Planner balance on heavy-tailed item costs");
        out.println();
        out.println(WORKERS + " workers (unlimited capacity), item costs drawn (seed " + options.seed() + ") from a "
                + "Pareto distribution (shape 1.5, minimum 10) or a log-normal one (median 30, sigma 1). Each "
                + "assignor places the items from nothing; then a tenth of the items draw a new cost (*drift*) and "
                + "it plans again until a plan moves nothing; then a 51st worker joins (*join*), likewise. "
                + "*max/mean*: the most loaded worker's total cost over the mean; *best*: max(mean, largest item) "
                + "over the mean, the lowest any assignor can reach. *rounds*: plans that moved something; "
                + "*moves*: items moved between workers in those plans (placing new items does not count).");
        out.println();
        out.println("| items | costs | assignor | placed: max/mean (best) | drift: max/mean (best) | drift: rounds, "
                + "moves | join: max/mean | join: rounds, moves |");
        out.println("| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |");
        for (int items : new int[] {1_000, 5_000}) {
            for (Costs shape : Costs.values()) {
                Random random = new Random(options.seed() + items + shape.ordinal());
                long[] costs = new long[items];
                for (int i = 0; i < items; i++) {
                    costs[i] = shape.draw(random);
                }
                long[] drifted = costs.clone();
                for (int i = 0; i < items; i++) {
                    if (random.nextInt(10) == 0) {
                        drifted[i] = shape.draw(random);
                    }
                }
                for (PlannerConfig config : List.of(PlannerConfig.load(), PlannerConfig.defaults(),
                        PlannerConfig.weighted())) {
                    row(out, items, shape, label(config), baton(config, costs, drifted));
                }
                for (KafkaBalance.Assignor assignor : KafkaBalance.Assignor.values()) {
                    row(out, items, shape, assignor.label, KafkaBalance.run(assignor, WORKERS, costs, drifted));
                }
            }
        }
        out.println();
    }

    /** The item cost distributions. */
    enum Costs {
        PARETO("Pareto 1.5") {
            @Override
            long draw(Random random) {
                return Math.max(1, Math.round(10 * Math.pow(1 - random.nextDouble(), -1 / 1.5)));
            }
        },
        LOG_NORMAL("log-normal 1") {
            @Override
            long draw(Random random) {
                return Math.max(1, Math.round(30 * Math.exp(random.nextGaussian())));
            }
        };

        final String label;

        Costs(String label) {
            this.label = label;
        }

        abstract long draw(Random random);
    }

    private static String label(PlannerConfig config) {
        return switch (config.mode()) {
            case LOAD -> "Baton load mode (band " + Math.round(config.imbalanceBand() * 100) + "%, cap "
                    + config.maxMovesPerRound() + ")";
            case COUNT -> "Baton count mode";
            case WEIGHTED -> "Baton weighted mode";
        };
    }

    /** What one assignor did: the loads after placing, and after the drift and the join settled. */
    record Outcome(Stats placed, Phase drift, Phase join) {
    }

    /** One phase: the loads where it settled, the plans that moved something and the items they moved. */
    record Phase(Stats stats, int rounds, long moves) {
    }

    /** A worker-load summary. */
    record Stats(double maxOverMean, double bestOverMean) {

        static Stats of(long[] loads, long[] costs) {
            long total = 0;
            long max = 0;
            for (long load : loads) {
                total += load;
                max = Math.max(max, load);
            }
            long largest = 0;
            for (long cost : costs) {
                largest = Math.max(largest, cost);
            }
            double mean = (double) total / loads.length;
            return new Stats(max / mean, Math.max(mean, largest) / mean);
        }
    }

    private static void row(PrintStream out, int items, Costs shape, String label, Outcome o) {
        out.printf("| %,d | %s | %s | %.3f (%.3f) | %.3f (%.3f) | %d, %,d | %.3f | %d, %,d |%n", items, shape.label,
                label, o.placed().maxOverMean(), o.placed().bestOverMean(), o.drift().stats().maxOverMean(),
                o.drift().stats().bestOverMean(), o.drift().rounds(), o.drift().moves(),
                o.join().stats().maxOverMean(), o.join().rounds(), o.join().moves());
    }

    private static Outcome baton(PlannerConfig config, long[] costs, long[] drifted) {
        Planner planner = new Planner(config);
        List<Worker> workers = new ArrayList<>();
        for (int w = 0; w < WORKERS; w++) {
            workers.add(Worker.online(KafkaBalance.workerId(w)));
        }
        Plan placed = settle(planner, planner.plan(input(costs, workers, Map.of()))).plan();
        Settled drift = settle(planner, planner.plan(input(drifted, workers, placed.assignment())));
        List<Worker> joined = new ArrayList<>(workers);
        joined.add(Worker.online(KafkaBalance.workerId(WORKERS)));
        Settled join = settle(planner, planner.plan(input(drifted, joined, drift.plan().assignment())));
        return new Outcome(Stats.of(loads(placed, costs, WORKERS), costs),
                new Phase(Stats.of(loads(drift.plan(), drifted, WORKERS), drifted), drift.rounds(), drift.moves()),
                new Phase(Stats.of(loads(join.plan(), drifted, WORKERS + 1), drifted), join.rounds(), join.moves()));
    }

    /** Where replanning ended: the last plan, how many plans moved something, and how many items they moved. */
    private record Settled(Plan plan, int rounds, long moves) {
    }

    /** Applies {@code start} and replans until a plan moves nothing (at most {@value #MAX_ROUNDS} plans). */
    private static Settled settle(Planner planner, Plan start) {
        Plan current = start;
        int rounds = 0;
        long moves = 0;
        for (int round = 0; round < MAX_ROUNDS; round++) {
            long made = balancingMoves(current);
            if (made == 0 && round > 0) {
                break;
            }
            if (made > 0) {
                rounds++;
                moves += made;
            }
            current = planner.plan(current.nextInput());
        }
        return new Settled(current, rounds, moves);
    }

    private static long balancingMoves(Plan plan) {
        return plan.moves().stream().filter(m -> m.kind() == Move.Kind.MOVE).count();
    }

    private static PlanInput input(long[] costs, List<Worker> workers, Map<String, String> assignment) {
        PlanInput.Builder builder = PlanInput.builder().workers(workers).assignment(assignment);
        for (int i = 0; i < costs.length; i++) {
            builder.item(KafkaBalance.itemId(i), costs[i]);
        }
        return builder.build();
    }

    private static long[] loads(Plan plan, long[] costs, int workers) {
        Map<String, Integer> index = new HashMap<>();
        for (int w = 0; w < workers; w++) {
            index.put(KafkaBalance.workerId(w), w);
        }
        long[] loads = new long[workers];
        plan.assignment().forEach((item, worker) -> loads[index.get(worker)] += costs[KafkaBalance.itemIndex(item)]);
        return loads;
    }
}

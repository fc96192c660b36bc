package dev.baton.bench;

import dev.baton.bench.failover.FailoverScenario;
import dev.baton.bench.failover.StoreFailoverScenario;
import dev.baton.bench.first.FirstElectionScenario;
import dev.baton.bench.handover.HandoverScenario;
import dev.baton.bench.http.HttpStatusScenario;
import dev.baton.bench.http.NginxFailoverScenario;
import dev.baton.bench.peer.BullyFailoverScenario;
import dev.baton.bench.peer.BullyMessagesScenario;
import dev.baton.bench.peer.PeerConvergenceScenario;
import dev.baton.bench.peer.PeerFailoverScenario;
import dev.baton.bench.peer.PeerHandoverScenario;
import dev.baton.bench.peer.PeerMessagesScenario;
import dev.baton.bench.registry.RegistryScenario;
import dev.baton.bench.replicawait.ReplicaWaitScenario;
import dev.baton.bench.report.ReportCommand;
import dev.baton.bench.scale.ScaleScenario;
import dev.baton.bench.soak.SoakScenario;
import dev.baton.bench.support.Environment;
import dev.baton.bench.work.PlannerBalanceScenario;
import dev.baton.bench.work.RollingRestartScenario;
import dev.baton.bench.work.WorkDbChangeScenario;
import dev.baton.bench.work.WorkRoutingScenario;
import dev.baton.bench.work.WorkServerlessScenario;
import dev.baton.bench.work.WorkSubscribeScenario;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Entry point of {@code baton-bench.jar}: {@code java -jar baton-bench.jar <scenario> [--n N] [--warmup N]
 * [--seed S]} runs one scenario (or {@code all}) and prints markdown result tables on stdout; progress and logs go
 * to stderr. {@code java -jar baton-bench.jar report [--quick] [--write DIR]} runs the comparison scenarios and writes
 * the goals summary and latency charts ({@link ReportCommand}). {@code java -jar baton-bench.jar jmh [JMH options]} runs the JMH micro-benchmarks.
 */
public final class BenchMain {

    /** Scenarios too long for {@code all}. */
    private static final List<String> ONLY_BY_NAME = List.of("soak", "scale");

    private static final String[] QUICK_JMH = {"-f", "1", "-wi", "3", "-w", "1s", "-i", "5", "-r", "1s"};

    private BenchMain() {
    }

    /** Every scenario by its command-line name, in the order {@code all} runs them. */
    public static Map<String, Scenario> scenarios() {
        Map<String, Scenario> all = new LinkedHashMap<>();
        for (Scenario s : List.of(new HandoverScenario(), new FailoverScenario(), new FirstElectionScenario(),
                new RegistryScenario(), new NginxFailoverScenario(), new HttpStatusScenario(),
                new PeerFailoverScenario(), new PeerHandoverScenario(), new PeerMessagesScenario(),
                new PeerConvergenceScenario(), new BullyFailoverScenario(), new BullyMessagesScenario(),
                new WorkRoutingScenario(), new WorkSubscribeScenario(), new WorkDbChangeScenario(), new WorkServerlessScenario(),
                new RollingRestartScenario(), new PlannerBalanceScenario(), new SoakScenario(),
                new StoreFailoverScenario(), new ReplicaWaitScenario(), new ScaleScenario())) {
            all.put(s.name(), s);
        }
        return all;
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = System.out;
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
            usage(out);
            return;
        }
        String command = args[0];
        List<String> rest = Arrays.asList(args).subList(1, args.length);
        if (command.equals("jmh")) {
            org.openjdk.jmh.Main.main(rest.isEmpty() ? QUICK_JMH : rest.toArray(String[]::new));
            return;
        }
        if (command.equals("report")) {
            int code = ReportCommand.main(rest, scenarios(), out);
            if (code != 0) {
                System.exit(code);
            }
            return;
        }
        Map<String, Scenario> scenarios = scenarios();
        if (!command.equals("all") && !scenarios.containsKey(command)) {
            System.err.println("unknown scenario '" + command + "'");
            usage(System.err);
            System.exit(2);
        }
        BenchOptions options;
        try {
            options = BenchOptions.parse(rest);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        out.println("# Baton benchmarks: " + command);
        out.println();
        out.println(Environment.machine() + ". Options: " + options + ".");
        out.println();
        // The soak runs for half an hour and the scale scenario about fifteen minutes: only when asked for by name.
        List<Scenario> toRun = command.equals("all")
                ? scenarios.values().stream().filter(s -> !ONLY_BY_NAME.contains(s.name())).toList()
                : List.of(scenarios.get(command));
        for (Scenario scenario : toRun) {
            long start = System.nanoTime();
            scenario.run(options, out);
            System.err.printf("%s finished in %.1f s%n", scenario.name(), (System.nanoTime() - start) / 1e9);
            out.flush();
        }
    }

    private static void usage(PrintStream out) {
        out.println("usage: java -jar baton-bench.jar <scenario> [--n N] [--warmup N] [--seed S] "
                + "[--candidates a,b] [--backend redis|postgres|redis,postgres] [--processes N,M] [--duration 30m]"
                + " [--groups N,M] [--window-seconds S] [--killed-groups N]");
        out.println("       java -jar baton-bench.jar report [--quick] [--write DIR] [--only id,id]   (every comparison"
                + " scenario; writes DIR/summary.md and DIR/charts/*.png, default DIR docs/benchmarks; about 20 min,"
                + " 5-7 with --quick)");
        out.println("       java -jar baton-bench.jar jmh [JMH options]   (default: "
                + String.join(" ", QUICK_JMH) + ")");
        out.println();
        out.println("scenarios:");
        scenarios().values().forEach(s -> out.printf("  %-15s %s%n", s.name(), s.description()));
        out.printf("  %-15s %s%n", "all", "runs every scenario above but soak and scale (the HTTP ones need"
                + " baton.jar; nginx-failover needs nginx)");
        out.println();
        out.println("handover candidates (--candidates): baton, baton-direct, baton-stepdown, setnx, redisson, "
                + "curator");
        out.println("  on --backend postgres: baton, baton-direct, baton-stepdown, advisory, curator");
        out.println("--backend (default redis) applies to handover, failover, first-election and registry;"
                + " --processes sets the registry sizes (default 10000; on postgres 1000,10000)");
        out.println("scale: --candidates baton-redis,redisson,baton-postgres; --groups (default 1,100,1000,10000),"
                + " --window-seconds (default 20), --killed-groups (default 1000)");
    }
}

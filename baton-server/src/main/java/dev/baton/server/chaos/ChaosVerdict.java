package dev.baton.server.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.TreeSet;

/**
 * The end of a chaos run: the checkers' report on its history, whether every safety property held, and for each
 * trial in which one did not, the command that replays that trial.
 */
final class ChaosVerdict {

    /** The history, one event per line, in the run's directory. */
    static final String HISTORY_FILE = "history.jsonl";
    /** The report as Markdown, in the run's directory. */
    static final String REPORT_FILE = "report.md";

    private final ChaosRunSettings settings;
    private final History history;
    private final ChaosReport report;

    private ChaosVerdict(ChaosRunSettings settings, History history, ChaosReport report) {
        this.settings = settings;
        this.history = history;
        this.report = report;
    }

    /** Runs the standard checkers of the run's backend over {@code history}. */
    static ChaosVerdict of(ChaosRunSettings settings, History history) {
        String title = settings.backend() + (settings.naive() ? " (naive)" : "")
                + (settings.sentinel().waitReplicas() > 0 ? " (waitReplicas " + settings.sentinel().waitReplicas()
                + ")" : "") + (settings.groups() > 1 ? ", " + settings.groups() + " groups per node" : "")
                + ", seed " + settings.seed();
        return new ChaosVerdict(settings, history, ChaosReport.run(title, history,
                Checker.standard(settings.backend(), settings.naive())));
    }

    ChaosReport report() {
        return report;
    }

    /** True when no safety checker found a violation (liveness misses are reported, not fatal). */
    boolean safe() {
        return report.safetyViolations() == 0;
    }

    /** The report for the terminal, and a replay command per trial with a safety violation. */
    String text() {
        StringBuilder text = new StringBuilder(report.text());
        TreeSet<Integer> failing = new TreeSet<>();
        report.results().stream().filter(ChaosReport.CheckerResult::safety)
                .forEach(result -> result.violations().forEach(v -> failing.add(v.trial())));
        for (int trial : failing) {
            text.append(String.format("replay trial %d: %s%n", trial, replay(trial)));
        }
        return text.toString();
    }

    /** The command that runs {@code trial} of this run again, alone, with the same choices. */
    String replay(int trial) {
        StringBuilder command = new StringBuilder("baton chaos --backend ").append(settings.backend())
                .append(" --seed ").append(settings.seed()).append(" --trials ").append(settings.trials())
                .append(" --trial ").append(trial);
        if (settings.nodes() != 3) {
            command.append(" --nodes ").append(settings.nodes());
        }
        if (!settings.faults().isEmpty()) {
            command.append(" --faults ").append(String.join(",",
                    settings.faults().stream().map(FaultKind::wireName).toList()));
        }
        if (settings.inTurn()) {
            command.append(" --faults-in-turn");
        }
        if (settings.naive()) {
            command.append(" --naive");
        }
        if (settings.shape().multiFault() > 0) {
            command.append(" --multi-fault ").append(settings.shape().multiFault());
        }
        if (settings.shape().aim() != TrialShape.Aim.NONE) {
            command.append(" --aim ").append(settings.shape().aim().label());
        }
        if (settings.workers() != ChaosRunSettings.defaultWorkers(settings.backend())) {
            command.append(" --workers ").append(settings.workers());
        }
        if (settings.groups() > 1) {
            command.append(" --groups ").append(settings.groups());
        }
        ChaosRunSettings.SentinelSettings sentinel = settings.sentinel();
        if (sentinel.waitReplicas() > 0) {
            command.append(" --wait-replicas ").append(sentinel.waitReplicas());
        }
        if (!sentinel.downAfter().equals(ChaosRunSettings.SentinelSettings.defaults().downAfter())) {
            command.append(" --sentinel-down-after ").append(sentinel.downAfter().toMillis()).append("ms");
        }
        if (!sentinel.failoverTimeout().equals(ChaosRunSettings.SentinelSettings.defaults().failoverTimeout())) {
            command.append(" --sentinel-failover-timeout ").append(sentinel.failoverTimeout().toMillis())
                    .append("ms");
        }
        return command.toString();
    }

    /** Writes the history and the Markdown report to {@code dir}. */
    void save(Path dir) {
        history.writeTo(dir.resolve(HISTORY_FILE));
        try {
            Files.writeString(dir.resolve(REPORT_FILE), report.markdown(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report to " + dir, e);
        }
    }
}

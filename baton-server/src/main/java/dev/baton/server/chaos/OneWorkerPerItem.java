package dev.baton.server.chaos;

import dev.baton.server.chaos.HistoryEvent.Trial;
import dev.baton.server.chaos.HistoryEvent.WorkerCommand;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A work item runs on one worker at a time, but for a short overlap the leader makes on purpose or cleans up at once.
 * What runs where comes from the workers' own lines ({@code worker-command}): an item runs on a worker from a
 * {@code subscribe} the worker carried out to the next {@code unsubscribe} it carried out (or the end of the history);
 * commands the worker refused as a deposed leader's change nothing.
 *
 * <p>Two copies of an item are allowed for at most {@link #BOUND}, measured from the later of the overlap's start and
 * the moment a leader was back after the trial's fault healed (nobody can stop a stray copy while there is no leader):
 * <ul>
 *   <li>a planned move is make-before-break: the leader subscribes the item on the new worker, waits until that
 *       worker's state report (every {@link ChaosRun#WORKER_REPORT_INTERVAL}) confirms it, then unsubscribes the old
 *       copy — one report interval and two round trips;</li>
 *   <li>a stray copy (a deposed leader's subscribe carried out before the new leader reached the worker, or a new
 *       leader placing an item before it saw a report that showed it running) is in the next state report of its
 *       worker, and a report that changed makes the leader plan a round, which unsubscribes the extra copy. A new
 *       leader first reconnects to the workers (1 s and up to 0.2 s of jitter in the {@code fast} profile the nodes
 *       run) and waits up to its takeover grace (1 s) for their first reports.</li>
 * </ul>
 * So 1.2 s + 1 s + 0.5 s, and 1.3 s for a loaded machine's scheduling and the commands' round trips: 4 s. Anything
 * longer means a copy nobody was going to stop, which is what a leader without fencing on the worker side produces.
 */
final class OneWorkerPerItem implements Checker {

    /** How long two copies of one item may run at once after a leader exists (see the class comment). */
    static final Duration BOUND = Duration.ofSeconds(4);

    /** An item running on a worker from {@code start} to {@code end}, opened by a command of {@code term}. */
    private record Run(String worker, long term, int trial, long start, long end) {
    }

    @Override
    public String name() {
        return "one-worker-per-item";
    }

    /** Only runs with workers record what they ran. */
    @Override
    public boolean appliesTo(History history) {
        return !history.eventsOf(WorkerCommand.class).isEmpty();
    }

    @Override
    public List<Violation> check(History history) {
        List<WorkerCommand> commands = new ArrayList<>(history.eventsOf(WorkerCommand.class));
        if (commands.isEmpty()) {
            return List.of();
        }
        commands.sort(Comparator.comparingLong(WorkerCommand::mono));
        long historyEnd = history.events().stream().mapToLong(HistoryEvent::time).max().orElseThrow();
        for (Trial trial : history.eventsOf(Trial.class)) {
            historyEnd = Math.max(historyEnd, trial.end());
        }
        Map<String, List<Run>> runsByItem = runs(commands, historyEnd);
        List<Trial> trials = history.eventsOf(Trial.class);
        Timeline timeline = Timeline.of(history);
        List<Violation> violations = new ArrayList<>();
        for (Map.Entry<String, List<Run>> entry : runsByItem.entrySet()) {
            List<Run> runs = entry.getValue();
            for (int i = 0; i < runs.size(); i++) {
                for (int j = i + 1; j < runs.size(); j++) {
                    Run a = runs.get(i);
                    Run b = runs.get(j);
                    if (a.worker().equals(b.worker())) {
                        continue;
                    }
                    long start = Math.max(a.start(), b.start());
                    long end = Math.min(a.end(), b.end());
                    if (end <= start) {
                        continue;
                    }
                    long from = Math.max(start, leaderBackAfter(start, trials));
                    if (end - from > BOUND.toNanos()) {
                        Run later = a.start() >= b.start() ? a : b;
                        violations.add(new Violation(name(), later.trial(), "item " + entry.getKey() + " ran on "
                                + a.worker() + " (term " + a.term() + ") and " + b.worker() + " (term " + b.term()
                                + ") at once from " + timeline.in(later.trial(), start) + " for "
                                + Timeline.millis(end - start) + ", " + Timeline.millis(end - from)
                                + " of it with a leader, beyond the " + BOUND.toMillis() + " ms bound"));
                    }
                }
            }
        }
        return violations;
    }

    /** Each item's runs on each worker, from the commands the workers carried out, in time order. */
    private static Map<String, List<Run>> runs(List<WorkerCommand> commands, long historyEnd) {
        Map<String, List<Run>> runs = new LinkedHashMap<>();
        Map<String, WorkerCommand> open = new LinkedHashMap<>();
        for (WorkerCommand command : commands) {
            if (!command.carriedOut()) {
                continue;
            }
            String key = command.item() + "\u0000" + command.worker();
            if (command.start()) {
                open.putIfAbsent(key, command);
            } else {
                WorkerCommand started = open.remove(key);
                if (started != null) {
                    runs.computeIfAbsent(command.item(), item -> new ArrayList<>()).add(new Run(started.worker(),
                            started.leaderTerm(), started.trial(), started.mono(), command.mono()));
                }
            }
        }
        for (WorkerCommand started : open.values()) {
            runs.computeIfAbsent(started.item(), item -> new ArrayList<>()).add(new Run(started.worker(),
                    started.leaderTerm(), started.trial(), started.mono(), historyEnd));
        }
        return runs;
    }

    /**
     * When a leader was back after the fault of the trial {@code at} falls in, if {@code at} is before that (during
     * the fault, or while the group was leaderless after it): the leader seen after healing, or the trial's end when
     * none was. Otherwise {@code at} itself.
     */
    private static long leaderBackAfter(long at, List<Trial> trials) {
        for (Trial trial : trials) {
            if (at >= trial.start() && at <= trial.end()) {
                long back = trial.leaderAt() != null ? trial.leaderAt() : trial.end();
                return Math.max(at, back);
            }
        }
        return at;
    }
}

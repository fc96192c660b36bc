package dev.baton.server.chaos;

import dev.baton.server.chaos.HistoryEvent.Trial;
import java.util.ArrayList;
import java.util.List;

/**
 * Liveness: once a trial heals, the harness sees a leader within the documented bound ({@code boundMs}). A miss is
 * not a safety violation (nothing wrong was accepted; the cluster was slow or stuck), so the report keeps it apart.
 */
final class LeaderAfterHeal implements Checker {

    @Override
    public String name() {
        return "leader-after-heal";
    }

    @Override
    public Kind kind() {
        return Kind.LIVENESS;
    }

    @Override
    public List<Violation> check(History history) {
        Timeline timeline = Timeline.of(history);
        List<Violation> misses = new ArrayList<>();
        for (Trial trial : history.eventsOf(Trial.class)) {
            if (!metBound(trial)) {
                misses.add(new Violation(name(), trial.trial(), describe(trial, timeline)));
            }
        }
        return misses;
    }

    /** Whether a leader was seen within {@code boundMs} of healing. */
    static boolean metBound(Trial trial) {
        return trial.leaderAt() != null && trial.leaderAt() - trial.healed() <= trial.boundMs() * 1_000_000L;
    }

    private static String describe(Trial trial, Timeline timeline) {
        String healed = "after " + trial.fault() + " healed at " + timeline.at(trial.trial(), trial.healed());
        if (trial.leaderAt() == null) {
            return "no leader " + healed + " until the trial ended at " + timeline.at(trial.trial(), trial.end())
                    + " (" + Timeline.millis(trial.end() - trial.healed()) + "; bound " + trial.boundMs() + " ms)";
        }
        return "leader only " + Timeline.millis(trial.leaderAt() - trial.healed()) + " " + healed + " (bound "
                + trial.boundMs() + " ms)";
    }
}

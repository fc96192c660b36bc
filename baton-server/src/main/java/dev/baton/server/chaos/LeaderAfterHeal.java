package dev.baton.server.chaos;

import dev.baton.server.chaos.HistoryEvent.Trial;
import java.util.ArrayList;
import java.util.List;

/**
 * Liveness: once a trial heals, the harness sees a leader within the documented bound ({@code boundMs}). A miss is
 * not a safety violation (nothing wrong was accepted; the cluster was slow or stuck), so the report keeps it apart.
 *
 * <p>In a run of several groups per node the harness watches group {@link ChaosRun#GROUP} ({@code leaderAt}); every
 * other group is checked from its nodes' own events: within the bound after healing some node of the group holds it as
 * the node sees it (from its {@code acquired} to its {@code lost}, a crash, or a higher term acquired in the group).
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
        List<History.Group> groups = history.groups();
        // The first is the group the harness drives, whose leader it timed itself (leaderAt).
        for (History.Group group : groups.subList(1, groups.size())) {
            List<LeaderlessTime.Holding> holdings = LeaderlessTime.holdings(group.history(),
                    LeaderlessTime.Cuts.IGNORED);
            for (Trial trial : history.eventsOf(Trial.class)) {
                long first = firstHeldAfter(holdings, trial.healed());
                if (first == Long.MAX_VALUE || first - trial.healed() > trial.boundMs() * 1_000_000L) {
                    Trial seen = new Trial(trial.trial(), trial.fault(), trial.dataLoss(), trial.start(),
                            trial.healed(), trial.end(), first <= trial.end() ? Long.valueOf(first) : null,
                            trial.boundMs());
                    misses.add(new Violation(name(), trial.trial(), describe(seen, timeline)).inGroup(group.name()));
                }
            }
        }
        return misses;
    }

    /** The first instant at or after {@code healed} that one of {@code holdings} covers; MAX_VALUE if none does. */
    private static long firstHeldAfter(List<LeaderlessTime.Holding> holdings, long healed) {
        long first = Long.MAX_VALUE;
        for (LeaderlessTime.Holding holding : holdings) {
            if (holding.until() > healed) {
                first = Math.min(first, Math.max(holding.from(), healed));
            }
        }
        return first;
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

package dev.baton.bench.report;

import java.util.Locale;

/**
 * The work cluster's throughput goal: at {@code rate} results/s offered, the listener on the non-leader receives at
 * least 98 % of the rate over the measured window, with no result missing from any worker's sequence (a gap that was
 * not filled by a re-send before the window closed) and none dropped unacknowledged by the leader. Read from the
 * facts the {@code work-routing} scenario states per step.
 */
final class RoutingLossGoal {

    private RoutingLossGoal() {
    }

    static Goal at(String run, int rate) {
        String goal = String.format(Locale.ROOT, "Work routing: %,d results/s sustained, nothing lost", rate);
        String bound = String.format(Locale.ROOT, ">= %,d/s received, 0 missing, 0 dropped", rate * 98 / 100);
        return findings -> {
            Double received = findings.fact(run, "receivedPerSecond@" + rate);
            Double missing = findings.fact(run, "missing@" + rate);
            Double dropped = findings.fact(run, "dropped@" + rate);
            Double checked = findings.fact(run, "checked@" + rate);
            if (received == null || missing == null || dropped == null || checked == null) {
                return Goal.Row.notMeasured(goal, bound, "the run stated no " + rate + "/s step", run);
            }
            boolean met = received >= rate * 0.98 && missing == 0 && dropped == 0;
            String baton = String.format(Locale.ROOT, "%,.0f/s received; of %,.0f results checked, %,.0f missing,"
                    + " %,.0f dropped", received, checked, missing, dropped);
            return new Goal.Row(goal, baton, "—", "—", bound, met ? "**met**" : "**missed**", run);
        };
    }
}

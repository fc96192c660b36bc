package dev.baton.server.chaos;

import dev.baton.server.chaos.HistoryEvent.Outcome;
import dev.baton.server.chaos.HistoryEvent.Write;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The fenced resource never goes back to a lower term: for two acknowledged writes W1 and W2, if W1 was answered
 * before W2 was sent, W2's term is not lower than W1's. A write refused, or with no clear answer, never counts as
 * accepted. This is the property fencing tokens exist for: once a newer leader's write is in, a paused or
 * partitioned old leader's writes must bounce.
 *
 * <p>The check sorts the acknowledged writes by {@code sent} and by {@code answered} and sweeps both, keeping the
 * highest term among the writes answered before the current one was sent: O(n log n) in the number of writes. A
 * group's writes go to its own register: in a run of several groups per node each group is checked apart.
 */
final class Fencing implements Checker {

    @Override
    public String name() {
        return "fencing";
    }

    @Override
    public List<Violation> check(History history) {
        return Checker.perGroup(history, this::checkGroup);
    }

    /** The check over one election group's part of the history. */
    private List<Violation> checkGroup(History history) {
        Timeline timeline = Timeline.of(history);
        List<Write> byAnswered = new ArrayList<>();
        for (Write write : history.eventsOf(Write.class)) {
            if (write.outcome() == Outcome.OK) {
                byAnswered.add(write);
            }
        }
        byAnswered.sort(Comparator.comparingLong(Write::answered));
        List<Write> bySent = new ArrayList<>(byAnswered);
        bySent.sort(Comparator.comparingLong(Write::sent));

        List<Violation> violations = new ArrayList<>();
        Write highestBefore = null;
        int folded = 0;
        for (Write later : bySent) {
            while (folded < byAnswered.size() && byAnswered.get(folded).answered() < later.sent()) {
                Write earlier = byAnswered.get(folded++);
                if (highestBefore == null || earlier.term() > highestBefore.term()) {
                    highestBefore = earlier;
                }
            }
            if (highestBefore != null && later.term() < highestBefore.term()) {
                violations.add(new Violation(name(), later.trial(), "write " + later.seq() + " by " + later.node()
                        + " under term " + later.term() + " (sent at " + timeline.in(later.trial(), later.sent())
                        + ") was accepted after write " + highestBefore.seq() + " by " + highestBefore.node()
                        + " under term " + highestBefore.term() + " had been acknowledged (at "
                        + timeline.in(highestBefore.trial(), highestBefore.answered()) + ")"));
            }
        }
        return violations;
    }
}

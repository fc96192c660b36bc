package dev.baton.server.chaos;

import dev.baton.server.chaos.HistoryEvent.Acquired;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Terms rise with real time: if acquisition A was surely granted before acquisition B was asked for
 * ({@code A.mono < B.since}), then B's term is higher than A's. A store that forgot its term counter, or came back
 * from an older copy, would hand out a term again or a lower one, and this is where it shows.
 *
 * <p>The check sorts the acquisitions once by {@code since} and once by {@code mono} and sweeps both: before looking
 * at B it folds every A with {@code A.mono < B.since} into a running maximum, so it is O(n log n) in the number of
 * acquisitions. Each violation names B and the highest-term acquisition that surely preceded it. Terms rise within a
 * group: in a run of several groups per node each group is checked apart.
 */
final class TermsRise implements Checker {

    @Override
    public String name() {
        return "terms-rise";
    }

    @Override
    public List<Violation> check(History history) {
        return Checker.perGroup(history, this::checkGroup);
    }

    /** The check over one election group's part of the history. */
    private List<Violation> checkGroup(History history) {
        Timeline timeline = Timeline.of(history);
        List<Acquired> byMono = new ArrayList<>(history.eventsOf(Acquired.class));
        byMono.sort(Comparator.comparingLong(Acquired::mono));
        List<Acquired> bySince = new ArrayList<>(byMono);
        bySince.sort(Comparator.comparingLong(Acquired::since));

        List<Violation> violations = new ArrayList<>();
        Acquired highestBefore = null;
        int folded = 0;
        for (Acquired later : bySince) {
            while (folded < byMono.size() && byMono.get(folded).mono() < later.since()) {
                Acquired earlier = byMono.get(folded++);
                if (highestBefore == null || earlier.term() > highestBefore.term()) {
                    highestBefore = earlier;
                }
            }
            if (highestBefore != null && later.term() <= highestBefore.term()) {
                violations.add(new Violation(name(), later.trial(), later.node() + " acquired term " + later.term()
                        + " (asked at " + timeline.in(later.trial(), later.since()) + ") after " + highestBefore.node()
                        + " had already acquired term " + highestBefore.term() + " (at "
                        + timeline.in(highestBefore.trial(), highestBefore.mono()) + ")"));
            }
        }
        return violations;
    }
}

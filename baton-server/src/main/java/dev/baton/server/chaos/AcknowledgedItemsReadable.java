package dev.baton.server.chaos;

import dev.baton.server.chaos.HistoryEvent.ItemRead;
import dev.baton.server.chaos.HistoryEvent.ItemWrite;
import dev.baton.server.chaos.HistoryEvent.Outcome;
import dev.baton.server.chaos.HistoryEvent.Trial;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the cluster acknowledged, it keeps: after a trial heals, the read of every item written in that trial returns
 * a value some write could have left last. Let L be the acknowledged write of the item sent last. A write could have
 * been applied last if it was acknowledged and was still in flight when L was sent ({@code answered >= L.sent}: L
 * itself, writes concurrent with it), or if it got no clear answer (it may land at any time, even after L). So the
 * read must return one of those writes' values; a missing read, or a read that finds nothing, loses L. An item with
 * no acknowledged write may read as nothing or as the value of a write with no clear answer, but never as the value
 * of a refused write.
 *
 * <p>Trials whose fault can make the store forget acknowledged writes ({@code dataLoss}) are skipped:
 * {@link #skippedTrials} counts them so the report can say how many were not checked. Writes and reads are matched by
 * trial and item id; the trial's last read of an id (by time) is the one that counts.
 */
final class AcknowledgedItemsReadable implements Checker {

    private static final int LISTED_VALUES = 5;

    private record Item(int trial, String id) {
    }

    @Override
    public String name() {
        return "acknowledged-items-readable";
    }

    /** How many trials were not checked because their fault can lose acknowledged data. */
    static int skippedTrials(History history) {
        return (int) history.eventsOf(Trial.class).stream().filter(Trial::dataLoss).count();
    }

    @Override
    public List<Violation> check(History history) {
        Timeline timeline = Timeline.of(history);
        Set<Integer> lossy = new LinkedHashSet<>();
        for (Trial trial : history.eventsOf(Trial.class)) {
            if (trial.dataLoss()) {
                lossy.add(trial.trial());
            }
        }
        Map<Item, List<ItemWrite>> writes = new LinkedHashMap<>();
        for (ItemWrite write : history.eventsOf(ItemWrite.class)) {
            if (!lossy.contains(write.trial())) {
                writes.computeIfAbsent(new Item(write.trial(), write.id()), item -> new ArrayList<>()).add(write);
            }
        }
        Map<Item, ItemRead> finalReads = new HashMap<>();
        for (ItemRead read : history.eventsOf(ItemRead.class)) {
            finalReads.merge(new Item(read.trial(), read.id()), read,
                    (a, b) -> b.mono() >= a.mono() ? b : a);
        }
        List<Violation> violations = new ArrayList<>();
        for (Map.Entry<Item, List<ItemWrite>> entry : writes.entrySet()) {
            check(entry.getKey(), entry.getValue(), finalReads.get(entry.getKey()), timeline, violations);
        }
        return violations;
    }

    private void check(Item item, List<ItemWrite> writes, ItemRead read, Timeline timeline, List<Violation> out) {
        ItemWrite lastAcknowledged = writes.stream().filter(write -> write.outcome() == Outcome.OK)
                .max(Comparator.comparingLong(ItemWrite::sent)).orElse(null);
        Set<String> possible = new LinkedHashSet<>();
        for (ItemWrite write : writes) {
            boolean unanswered = write.outcome() == Outcome.UNKNOWN;
            boolean stillInFlight = write.outcome() == Outcome.OK && write.answered() >= lastAcknowledged.sent();
            if (unanswered || stillInFlight) {
                possible.add(write.value());
            }
        }
        String prefix = "item " + item.id() + ": ";
        if (lastAcknowledged == null) {
            if (read != null && read.value() != null && !possible.contains(read.value())) {
                out.add(new Violation(name(), item.trial(), prefix + "read as '" + read.value() + "' at "
                        + timeline.at(item.trial(), read.mono()) + ", but no write of that value was acknowledged "
                        + "or left without an answer" + listed(possible, "; possible values")));
            }
            return;
        }
        String acknowledged = "'" + lastAcknowledged.value() + "' (written through " + lastAcknowledged.node()
                + ", sent at " + timeline.at(item.trial(), lastAcknowledged.sent()) + ", acknowledged at "
                + timeline.at(item.trial(), lastAcknowledged.answered()) + ")";
        if (read == null) {
            out.add(new Violation(name(), item.trial(), prefix + "never read after healing; last acknowledged value "
                    + acknowledged));
        } else if (read.value() == null) {
            out.add(new Violation(name(), item.trial(), prefix + "read as missing at "
                    + timeline.at(item.trial(), read.mono()) + "; last acknowledged value " + acknowledged));
        } else if (!possible.contains(read.value())) {
            out.add(new Violation(name(), item.trial(), prefix + "read as '" + read.value() + "' at "
                    + timeline.at(item.trial(), read.mono()) + "; last acknowledged value " + acknowledged
                    + listed(possible, "; possible values")));
        }
    }

    private static String listed(Set<String> values, String label) {
        if (values.isEmpty()) {
            return "";
        }
        List<String> shown = values.stream().limit(LISTED_VALUES).map(value -> "'" + value + "'").toList();
        String more = values.size() > LISTED_VALUES ? ", ... (" + values.size() + " in all)" : "";
        return label + ": " + String.join(", ", shown) + more;
    }
}

package dev.baton.server.chaos;

import dev.baton.server.chaos.HistoryEvent.ItemRead;
import dev.baton.server.chaos.HistoryEvent.ItemWrite;
import dev.baton.server.chaos.HistoryEvent.Outcome;
import dev.baton.server.chaos.Linearizability.Op;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Each work item, a key of the leader's fenced map, behaves as a linearizable register: some order of its writes and
 * reads, each taking effect between its sending and its answer, explains every read. An acknowledged write took
 * effect; a refused one did not; one with no clear answer may have taken effect at any later instant or never. Items
 * start absent (ids are unique to a trial).
 *
 * <p>Where {@link AcknowledgedItemsReadable} asks whether the final read could be the last write, this also places
 * every read against every write in real time, so a read that saw a value and a later read that went back to an older
 * one are caught too. Trials whose fault can make the store forget acknowledged writes are skipped, as there.
 */
final class LinearizableItems implements Checker {

    /** A write of {@code value} (null: not a write), or a read that returned {@code value} (null: absent). */
    record ItemOp(boolean read, String value, String label) {
    }

    private record Item(int trial, String id) {
    }

    @Override
    public String name() {
        return "items-linearizable";
    }

    @Override
    public List<Violation> check(History history) {
        Timeline timeline = Timeline.of(history);
        Set<Integer> lossy = new LinkedHashSet<>();
        for (HistoryEvent.Trial trial : history.eventsOf(HistoryEvent.Trial.class)) {
            if (trial.dataLoss()) {
                lossy.add(trial.trial());
            }
        }
        Map<Item, List<Op<ItemOp>>> byItem = new LinkedHashMap<>();
        for (ItemWrite write : history.eventsOf(ItemWrite.class)) {
            if (lossy.contains(write.trial()) || write.outcome() == Outcome.REFUSED) {
                continue;
            }
            ItemOp op = new ItemOp(false, write.value(), "write of '" + write.value() + "' through " + write.node()
                    + " (sent at " + timeline.at(write.trial(), write.sent()) + ")");
            byItem.computeIfAbsent(new Item(write.trial(), write.id()), item -> new ArrayList<>())
                    .add(write.outcome() == Outcome.OK ? Op.required(op, write.sent(), write.answered())
                            : Op.unknown(op, write.sent()));
        }
        for (ItemRead read : history.eventsOf(ItemRead.class)) {
            if (lossy.contains(read.trial())) {
                continue;
            }
            ItemOp op = new ItemOp(true, read.value(), "read as " + (read.value() == null ? "absent"
                    : "'" + read.value() + "'") + " at " + timeline.at(read.trial(), read.mono()));
            byItem.computeIfAbsent(new Item(read.trial(), read.id()), item -> new ArrayList<>())
                    .add(Op.required(op, read.mono(), read.mono()));
        }
        Linearizability<Optional<String>, ItemOp> checker = new Linearizability<>(new Model());
        List<Violation> violations = new ArrayList<>();
        byItem.forEach((item, ops) -> {
            Linearizability.Result<ItemOp> result = checker.check(ops, Optional.empty());
            if (!result.linearizable()) {
                violations.add(new Violation(name(), item.trial(), "item " + item.id() + ": no order of its writes "
                        + "explains the " + result.stuck().value().label()));
            }
        });
        return violations;
    }

    private static final class Model implements Linearizability.Model<Optional<String>, ItemOp> {

        @Override
        public Optional<Optional<String>> step(Optional<String> state, ItemOp op) {
            if (op.read()) {
                return Objects.equals(state.orElse(null), op.value()) ? Optional.of(state) : Optional.empty();
            }
            return Optional.of(Optional.of(op.value()));
        }

        @Override
        public boolean settled(Optional<String> state, ItemOp op) {
            return false; // a late write can always change what a later read returns
        }
    }
}

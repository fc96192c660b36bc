package dev.baton.server.chaos;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A small linearizability checker in the style of Wing and Gong, with Lowe's memoisation (the search Knossos runs):
 * is there an order of the operations, each taking effect at one instant between its invocation and its response,
 * in which every operation's outcome is the one a sequential {@link Model} gives?
 *
 * <p>An operation with no clear outcome ({@link Op#optional()}: a timeout, a broken connection) may take effect at any
 * instant after its invocation, even long after, or never. The search runs over windows: the history is cut wherever
 * no required operation is in flight, each window is searched from every state the previous one could end in, and
 * the optional operations not yet placed are carried into the next window until the model says they can no longer
 * change anything ({@link Model#settled}). Carrying the union of what each branch left unplaced over-approximates
 * (an operation could be placed twice), which can hide a violation but never invent one; for the idempotent models
 * used here it is exact.
 *
 * @param <S> the model's state
 * @param <O> what an operation carries for the model
 */
final class Linearizability<S, O> {

    /** The sequential specification. */
    interface Model<S, O> {
        /** The state after {@code op} takes effect in {@code state} with its recorded outcome; empty if it cannot. */
        Optional<S> step(S state, O op);

        /** Whether an optional {@code op} taking effect from {@code state} on can no longer change any outcome. */
        boolean settled(S state, O op);
    }

    /**
     * One operation: invoked at {@code invoked}, answered at {@code answered} ({@link Long#MAX_VALUE} when optional).
     */
    record Op<O>(O value, long invoked, long answered, boolean optional) {
        static <O> Op<O> required(O value, long invoked, long answered) {
            return new Op<>(value, invoked, answered, false);
        }

        static <O> Op<O> unknown(O value, long invoked) {
            return new Op<>(value, invoked, Long.MAX_VALUE, true);
        }
    }

    /** The verdict: linearizable, or the first required operation no order could place. */
    record Result<O>(boolean linearizable, Op<O> stuck, int windows, boolean exhausted) {
    }

    /** Configurations explored per window before giving up on that window (counted as {@code exhausted}). */
    private static final int BUDGET = 200_000;

    private final Model<S, O> model;

    Linearizability(Model<S, O> model) {
        this.model = model;
    }

    /** Checks {@code ops} from {@code initial}. */
    Result<O> check(List<Op<O>> ops, S initial) {
        List<Op<O>> sorted = new ArrayList<>(ops);
        sorted.sort(Comparator.comparingLong(Op::invoked));
        Set<S> states = new LinkedHashSet<>(List.of(initial));
        List<Op<O>> carried = new ArrayList<>();
        int windows = 0;
        boolean exhausted = false;
        int start = 0;
        while (start < sorted.size()) {
            int end = windowEnd(sorted, start);
            List<Op<O>> window = new ArrayList<>(carried);
            window.addAll(sorted.subList(start, end));
            Search search = new Search(window);
            for (S state : states) {
                search.run(state);
            }
            windows++;
            if (search.exhausted) {
                exhausted = true;
            }
            if (search.ends.isEmpty()) {
                return new Result<>(search.exhausted, search.stuck(), windows, exhausted);
            }
            states = search.ends;
            carried = new ArrayList<>();
            for (int i = 0; i < window.size(); i++) {
                Op<O> op = window.get(i);
                if (op.optional() && search.unplaced.get(i) && !settledInAll(states, op)) {
                    carried.add(op);
                }
            }
            start = end;
        }
        return new Result<>(true, null, windows, exhausted);
    }

    private boolean settledInAll(Set<S> states, Op<O> op) {
        for (S state : states) {
            if (!model.settled(state, op.value())) {
                return false;
            }
        }
        return true;
    }

    /** The end of the window starting at {@code start}: the first operation invoked after every earlier one answered. */
    private static <O> int windowEnd(List<Op<O>> sorted, int start) {
        long reach = Long.MIN_VALUE;
        int i = start;
        for (; i < sorted.size(); i++) {
            Op<O> op = sorted.get(i);
            if (i > start && op.invoked() > reach) {
                break;
            }
            if (!op.optional()) {
                reach = Math.max(reach, op.answered());
            }
        }
        return i;
    }

    /** A depth-first search over (placed operations, state), each configuration visited once. */
    private final class Search {
        private final List<Op<O>> ops;
        private final Set<S> ends = new LinkedHashSet<>();
        private final BitSet unplaced = new BitSet();
        private final Set<Config<S>> seen = new HashSet<>();
        private int deepest = -1;
        private BitSet deepestPlaced = new BitSet();
        private boolean exhausted;

        Search(List<Op<O>> ops) {
            this.ops = ops;
        }

        void run(S initial) {
            explore(new BitSet(), initial, 0);
        }

        private void explore(BitSet placed, S state, int depth) {
            if (exhausted || !seen.add(new Config<>((BitSet) placed.clone(), state))) {
                return;
            }
            if (seen.size() > BUDGET) {
                exhausted = true;
                return;
            }
            if (depth > deepest) {
                deepest = depth;
                deepestPlaced = (BitSet) placed.clone();
            }
            long horizon = Long.MAX_VALUE;
            boolean requiredLeft = false;
            for (int i = placed.nextClearBit(0); i < ops.size(); i = placed.nextClearBit(i + 1)) {
                Op<O> op = ops.get(i);
                if (!op.optional()) {
                    requiredLeft = true;
                    horizon = Math.min(horizon, op.answered());
                }
            }
            if (!requiredLeft) {
                ends.add(state);
                for (int i = placed.nextClearBit(0); i < ops.size(); i = placed.nextClearBit(i + 1)) {
                    unplaced.set(i);
                }
            }
            for (int i = placed.nextClearBit(0); i < ops.size(); i = placed.nextClearBit(i + 1)) {
                Op<O> op = ops.get(i);
                if (op.invoked() > horizon) {
                    continue; // an unplaced operation was answered before this one was invoked: it goes first
                }
                Optional<S> next = model.step(state, op.value());
                if (next.isPresent()) {
                    placed.set(i);
                    explore(placed, next.get(), depth + 1);
                    placed.clear(i);
                }
            }
        }

        /** The required operation invoked first among those the deepest branch could not place. */
        Op<O> stuck() {
            Op<O> first = null;
            for (int i = deepestPlaced.nextClearBit(0); i < ops.size(); i = deepestPlaced.nextClearBit(i + 1)) {
                Op<O> op = ops.get(i);
                if (!op.optional() && (first == null || op.answered() < first.answered())) {
                    first = op;
                }
            }
            return first;
        }
    }

    private record Config<S>(BitSet placed, S state) {
    }
}

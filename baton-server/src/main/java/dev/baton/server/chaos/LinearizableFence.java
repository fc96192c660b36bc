package dev.baton.server.chaos;

import dev.baton.server.chaos.HistoryEvent.Acquired;
import dev.baton.server.chaos.HistoryEvent.Outcome;
import dev.baton.server.chaos.HistoryEvent.Write;
import dev.baton.server.chaos.Linearizability.Op;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The fenced resource's history is linearizable: some order of the writes (and, on a store, the grants), each taking
 * effect at one instant between its sending and its answer, explains every outcome, with a write of unknown outcome
 * free to have taken effect at any later instant or never ({@link Linearizability}).
 *
 * <p>The sequential model depends on the resource. A store's fenced register ({@link Resource#STORE_REGISTER})
 * accepts a write only under the group's newest term, so a write is accepted only if its term is at least every term
 * written and every term granted before it: grants are operations too, placed between the acquire's {@code since}
 * and {@code mono}; a refusal is not checked there, since a grant no node lived to announce (one handed back) can
 * explain it. The harness's own resource on the serverless backends ({@link Resource#WRITE_FENCE}) admits a write iff
 * its term is at least the highest admitted, and refuses otherwise: both outcomes are checked, and grants play no part.
 *
 * <p>This goes further than {@link Fencing}, which compares acknowledged writes pairwise: it places the writes with no
 * clear answer, and on a store it catches a write accepted after a newer term was surely granted, before any write
 * under that term.
 *
 * <p>In a run of several groups per node each group is checked apart, its writes against its own grants only (only
 * the first group writes, so the others have nothing to check).
 */
final class LinearizableFence implements Checker {

    /** What the resource admits. */
    enum Resource {
        /** The store's fenced register: only the group's newest granted term. */
        STORE_REGISTER,
        /** A term fence over writes only: a term not below the highest admitted. */
        WRITE_FENCE
    }

    /** The highest term admitted so far and the newest term granted so far. */
    record State(long written, long granted) {
    }

    /** A write of {@code term} with its outcome, or a grant of {@code term}. */
    record FenceOp(long term, Outcome outcome, boolean grant, String label) {
    }

    private final Resource resource;

    LinearizableFence(Resource resource) {
        this.resource = resource;
    }

    @Override
    public String name() {
        return "fence-linearizable";
    }

    @Override
    public List<Violation> check(History history) {
        return Checker.perGroup(history, this::checkGroup);
    }

    /** The check over one election group's part of the history. */
    private List<Violation> checkGroup(History history) {
        if (history.eventsOf(Write.class).isEmpty()) {
            return List.of(); // grants alone always have an order: a group whose nodes write nothing has nothing here
        }
        Timeline timeline = Timeline.of(history);
        List<Op<FenceOp>> ops = new ArrayList<>();
        for (Write write : history.eventsOf(Write.class)) {
            FenceOp op = new FenceOp(write.term(), write.outcome(), false, "write " + write.seq() + " by "
                    + write.node() + " under term " + write.term() + " (" + write.outcome().wireName() + ", sent at "
                    + timeline.in(write.trial(), write.sent()) + ")");
            ops.add(write.outcome() == Outcome.UNKNOWN ? Op.unknown(op, write.sent())
                    : Op.required(op, write.sent(), write.answered()));
        }
        if (resource == Resource.STORE_REGISTER) {
            for (Acquired acquired : history.eventsOf(Acquired.class)) {
                ops.add(Op.required(new FenceOp(acquired.term(), Outcome.OK, true, "grant of term " + acquired.term()
                        + " to " + acquired.node() + " (announced at " + timeline.in(acquired.trial(), acquired.mono())
                        + ")"), acquired.since(), acquired.mono()));
            }
        }
        Linearizability.Result<FenceOp> result = new Linearizability<>(new Model()).check(ops, new State(0, 0));
        if (result.linearizable()) {
            return List.of();
        }
        int trial = trialOf(history, result.stuck());
        return List.of(new Violation(name(), trial, "no order of the writes" + (resource == Resource.STORE_REGISTER
                ? " and grants" : "") + " explains " + result.stuck().value().label()));
    }

    private static int trialOf(History history, Op<FenceOp> stuck) {
        int trial = 0;
        for (HistoryEvent.Trial candidate : history.eventsOf(HistoryEvent.Trial.class)) {
            if (candidate.start() <= stuck.invoked()) {
                trial = candidate.trial();
            }
        }
        return trial;
    }

    private final class Model implements Linearizability.Model<State, FenceOp> {

        @Override
        public Optional<State> step(State state, FenceOp op) {
            if (op.grant()) {
                return Optional.of(new State(state.written(), Math.max(state.granted(), op.term())));
            }
            boolean admissible = op.term() >= floor(state);
            return switch (op.outcome()) {
                case OK -> admissible ? Optional.of(new State(op.term(), state.granted())) : Optional.empty();
                case REFUSED -> resource == Resource.STORE_REGISTER || !admissible
                        ? Optional.of(state) : Optional.empty();
                case UNKNOWN -> Optional.of(admissible ? new State(op.term(), state.granted()) : state);
            };
        }

        @Override
        public boolean settled(State state, FenceOp op) {
            return op.term() < floor(state) || op.term() == state.written();
        }

        private long floor(State state) {
            return resource == Resource.STORE_REGISTER ? Math.max(state.written(), state.granted()) : state.written();
        }
    }
}

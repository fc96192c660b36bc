package dev.baton.server.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A property of a chaos history. Checkers are pure: they read the history and say what breaks the property, nothing
 * else. Safety checkers guard what must never happen (two holders of a term, two nodes valid leaders at once, a stale
 * write accepted); a liveness checker guards what must happen in time, and a miss is reported apart from the safety
 * violations; an expected checker reports what a property does in trials whose fault breaks an assumption the property
 * rests on, which is not a safety violation.
 */
interface Checker {

    /** How the report counts a checker's findings. */
    enum Kind {
        /** Must never happen; a run with one fails. */
        SAFETY("safety"),
        /** Must happen in time; a miss is reported, and the run does not fail. */
        LIVENESS("liveness"),
        /**
         * Found in trials whose fault breaks an assumption the property rests on: reported as "assumption broken:
         * expected", to show the assumption is needed, and the run does not fail.
         */
        EXPECTED("expected");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        /** The kind as the report's tables show it. */
        String label() {
            return label;
        }
    }

    /** The checker's name in the report, e.g. {@code one-holder-per-term}. */
    String name();

    /** How the report counts this checker's violations; safety unless the checker says otherwise. */
    default Kind kind() {
        return Kind.SAFETY;
    }

    /** Whether a violation of this checker is a safety violation. */
    default boolean safety() {
        return kind() == Kind.SAFETY;
    }

    /**
     * Whether {@code history} has anything this checker looks at; the report leaves out the row of one that has not
     * (the work-item checker in a run without workers), so a run's report lists what it really checked.
     */
    default boolean appliesTo(History history) {
        return true;
    }

    /** The violations in {@code history}; empty when the property holds. */
    List<Violation> check(History history);

    /**
     * Runs {@code check} on each election group's part of {@code history} ({@link History#groups()}) and returns
     * every violation, each naming its group in a run of several: how a checker that reasons about leaders keys its
     * state by (group, node).
     */
    static List<Violation> perGroup(History history, Function<History, List<Violation>> check) {
        List<History.Group> groups = history.groups();
        List<Violation> violations = new ArrayList<>();
        for (History.Group group : groups) {
            for (Violation violation : check.apply(group.history())) {
                violations.add(group.name() == null ? violation : violation.inGroup(group.name()));
            }
        }
        return violations;
    }

    /**
     * The checkers {@code baton chaos} runs, safety first; the expected one last (its row shows only in a run with a
     * fault that breaks an assumption).
     */
    static List<Checker> standard() {
        return standard(new Exclusion(), LinearizableFence.Resource.STORE_REGISTER);
    }

    /**
     * The same on {@code backend}: its exclusion checker tolerates the overlaps the backend documents, and the fenced
     * resource is checked as what it is there (the store's register, or the harness's own write fence on the serverless
     * backends and in {@code naive} mode).
     */
    static List<Checker> standard(String backend, boolean naive) {
        boolean serverless = backend.equals("quorum") || backend.equals("peer") || backend.equals("bully");
        return standard(Exclusion.forBackend(backend), naive || serverless
                ? LinearizableFence.Resource.WRITE_FENCE : LinearizableFence.Resource.STORE_REGISTER);
    }

    private static List<Checker> standard(Exclusion exclusion, LinearizableFence.Resource resource) {
        return List.of(new OneHolderPerTerm(), new TermsRise(), exclusion, new Fencing(),
                new LinearizableFence(resource), new AcknowledgedItemsReadable(), new LinearizableItems(),
                new OneWorkerPerItem(), new LeaderAfterHeal(), Exclusion.whereAnAssumptionIsBroken());
    }
}

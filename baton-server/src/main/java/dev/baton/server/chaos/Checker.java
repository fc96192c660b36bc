package dev.baton.server.chaos;

import java.util.List;

/**
 * A property of a chaos history. Checkers are pure: they read the history and say what breaks the property, nothing
 * else. Safety checkers guard what must never happen (two holders of a term, two nodes valid leaders at once, a stale
 * write accepted); a liveness checker guards what must happen in time, and a miss is reported apart from the safety
 * violations.
 */
interface Checker {

    /** The checker's name in the report, e.g. {@code one-holder-per-term}. */
    String name();

    /** Whether a violation of this checker is a safety violation; false for liveness. */
    default boolean safety() {
        return true;
    }

    /** The violations in {@code history}; empty when the property holds. */
    List<Violation> check(History history);

    /** The checkers {@code baton chaos} runs, safety first. */
    static List<Checker> standard() {
        return List.of(new OneHolderPerTerm(), new TermsRise(), new Exclusion(), new Fencing(),
                new AcknowledgedItemsReadable(), new LeaderAfterHeal());
    }
}

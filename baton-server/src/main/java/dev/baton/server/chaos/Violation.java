package dev.baton.server.chaos;

/**
 * One breach of a property a {@link Checker} guards: which checker, in which trial (0 for the setup), and a message
 * naming the events involved (nodes, terms, write numbers, times in milliseconds from the start of the trial) so a
 * reader can find them in the history.
 */
record Violation(String checker, int trial, String message) {

    /** This violation with its message naming election group {@code group} (a run with several per node). */
    Violation inGroup(String group) {
        return new Violation(checker, trial, "group " + group + ": " + message);
    }

    @Override
    public String toString() {
        return checker + " (trial " + trial + "): " + message;
    }
}

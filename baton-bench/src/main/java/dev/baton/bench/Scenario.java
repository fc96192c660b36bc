package dev.baton.bench;

import java.io.PrintStream;

/** One benchmark scenario: starts what it needs (its own private Redis), measures, prints markdown, stops it all. */
public interface Scenario {

    /** The name used on the command line, e.g. {@code handover}. */
    String name();

    /** One line for {@code --help}. */
    String description();

    /** Runs the scenario and prints its result tables to {@code out}. Everything it started is stopped on return. */
    void run(BenchOptions options, PrintStream out) throws Exception;
}

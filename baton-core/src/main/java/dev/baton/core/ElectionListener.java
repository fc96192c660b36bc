package dev.baton.core;

/**
 * Receives an election's events.
 *
 * <p>Contract: events of one election are delivered one at a time, in the order they happened, on the executor the
 * listener was added with (by default the election's own event queue, run on daemon threads the JVM's elections
 * share: never the caller's thread and never the thread that talks to the store). A listener that throws is logged
 * and does not stop delivery to itself or others. A slow listener delays the events after it, but not the election:
 * renewals go on while listeners run.
 *
 * <p>Latency: the default event queue costs a thread hand-off per event (about 0.5 ms of a graceful handover on a
 * 2-core VM, see {@code docs/benchmarks.md}). A listener that never blocks may be added with a direct executor,
 * {@code election.addListener(listener, Runnable::run)}, or the election built with
 * {@code eventExecutor(Runnable::run)}: it then runs in the election's own scheduler queue, and must return
 * quickly.
 *
 * <p>Races to expect: by the time {@code LeadershipAcquired} is delivered the leadership may already be lost (check
 * {@link Leadership#isValid()} and fence writes with the term); {@code LeadershipLost} for a term is delivered exactly
 * once, and after it the node must not act as leader of that term. On a graceful release the lease is only handed
 * on after every listener has returned from {@code LeadershipLost}, so a leader that stops acting there never
 * overlaps with its successor.
 *
 * <p>What a listener can and cannot do: the {@link Leadership} it is given is read-only, and only a successful renewal
 * (or, on the serverless backends, a majority's acknowledgement) moves its deadline, so nothing a listener does keeps
 * a leader valid longer. A listener may call {@link Election#stepDown()} or {@link Election#close()}; neither waits for
 * the listener itself: {@code close()} from a listener starts the close and returns at once, and the lease is
 * released without waiting for the listener to return from its {@code LeadershipLost}.
 */
@FunctionalInterface
public interface ElectionListener {

    void onEvent(ElectionEvent event);
}

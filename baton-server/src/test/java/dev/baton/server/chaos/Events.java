package dev.baton.server.chaos;

import dev.baton.server.chaos.HistoryEvent.Acquired;
import dev.baton.server.chaos.HistoryEvent.Crash;
import dev.baton.server.chaos.HistoryEvent.Fault;
import dev.baton.server.chaos.HistoryEvent.ItemRead;
import dev.baton.server.chaos.HistoryEvent.ItemWrite;
import dev.baton.server.chaos.HistoryEvent.Lost;
import dev.baton.server.chaos.HistoryEvent.Outcome;
import dev.baton.server.chaos.HistoryEvent.Pause;
import dev.baton.server.chaos.HistoryEvent.Trial;
import dev.baton.server.chaos.HistoryEvent.ValidUntil;
import dev.baton.server.chaos.HistoryEvent.Write;

/**
 * Hand-made history events with times in milliseconds from an arbitrary origin, so a test reads like a timeline
 * ("n1 acquires term 5 at 10 ms"). {@link #ms} turns them into the nanoTime readings the history stores.
 */
final class Events {

    /** An arbitrary nanoTime origin, far from zero like a real machine's. */
    static final long ORIGIN = 7_000_000_000_000L;

    private Events() {
    }

    static long ms(double millis) {
        return ORIGIN + Math.round(millis * 1_000_000);
    }

    static Acquired acquired(int trial, String node, long term, double sinceMs, double monoMs) {
        return new Acquired(trial, node, term, ms(sinceMs), ms(monoMs));
    }

    static Lost lost(int trial, String node, long term, double monoMs) {
        return new Lost(trial, node, term, "EXPIRED_LOCALLY", ms(monoMs));
    }

    /** At {@code monoMs}, {@code node}'s leadership of {@code term} counts itself valid until {@code deadlineMs}. */
    static ValidUntil validUntil(int trial, String node, long term, double deadlineMs, double monoMs) {
        return new ValidUntil(trial, node, term, ms(deadlineMs), ms(monoMs));
    }

    static Write ok(int trial, String node, long term, long seq, double sentMs, double answeredMs) {
        return new Write(trial, node, term, seq, ms(sentMs), ms(answeredMs), Outcome.OK);
    }

    static Write refused(int trial, String node, long term, long seq, double sentMs, double answeredMs) {
        return new Write(trial, node, term, seq, ms(sentMs), ms(answeredMs), Outcome.REFUSED);
    }

    static Write unknown(int trial, String node, long term, long seq, double sentMs) {
        return new Write(trial, node, term, seq, ms(sentMs), null, Outcome.UNKNOWN);
    }

    /** {@code event} as election group {@code group}'s, in a run of several groups per node. */
    static Acquired in(String group, Acquired event) {
        return new Acquired(event.trial(), event.node(), event.term(), event.since(), event.mono(), group);
    }

    /** {@code event} as election group {@code group}'s. */
    static Lost in(String group, Lost event) {
        return new Lost(event.trial(), event.node(), event.term(), event.reason(), event.mono(), group);
    }

    /** {@code event} as election group {@code group}'s. */
    static ValidUntil in(String group, ValidUntil event) {
        return new ValidUntil(event.trial(), event.node(), event.term(), event.deadline(), event.mono(), group);
    }

    /** {@code event} as election group {@code group}'s. */
    static Write in(String group, Write event) {
        return new Write(event.trial(), event.node(), event.term(), event.seq(), event.sent(), event.answered(),
                event.outcome(), group);
    }

    static ItemWrite itemOk(int trial, String id, String value, double sentMs, double answeredMs) {
        return new ItemWrite(trial, "n1", id, value, ms(sentMs), ms(answeredMs), Outcome.OK);
    }

    static ItemWrite itemRefused(int trial, String id, String value, double sentMs, double answeredMs) {
        return new ItemWrite(trial, "n1", id, value, ms(sentMs), ms(answeredMs), Outcome.REFUSED);
    }

    static ItemWrite itemUnknown(int trial, String id, String value, double sentMs) {
        return new ItemWrite(trial, "n2", id, value, ms(sentMs), null, Outcome.UNKNOWN);
    }

    static ItemRead read(int trial, String id, String value, double monoMs) {
        return new ItemRead(trial, id, value, ms(monoMs));
    }

    static Crash crash(int trial, String node, double monoMs) {
        return new Crash(trial, node, ms(monoMs));
    }

    static Pause pause(int trial, String node, double startMs, double endMs) {
        return new Pause(trial, node, ms(startMs), ms(endMs));
    }

    static Fault fault(int trial, FaultKind kind, String target, double startMs, double endMs) {
        return new Fault(trial, kind, target, ms(startMs), ms(endMs));
    }

    /** At {@code monoMs}, {@code worker} carried out a command of {@code term} to start or stop {@code item}. */
    static HistoryEvent.WorkerCommand workerCommand(int trial, String worker, String item, boolean start, long term,
            double monoMs) {
        return new HistoryEvent.WorkerCommand(trial, worker, item, start, term, true, ms(monoMs));
    }

    /** The same command, refused by the worker as a deposed leader's. */
    static HistoryEvent.WorkerCommand refusedCommand(int trial, String worker, String item, boolean start, long term,
            double monoMs) {
        return new HistoryEvent.WorkerCommand(trial, worker, item, start, term, false, ms(monoMs));
    }

    /** A trial with no data loss whose leader came back {@code leaderAtMs} (null: never) with a 4-second bound. */
    static Trial trial(int trial, FaultKind kind, double startMs, double healedMs, double endMs, Double leaderAtMs) {
        return new Trial(trial, kind, kind.canLoseData(), ms(startMs), ms(healedMs), ms(endMs),
                leaderAtMs == null ? null : ms(leaderAtMs), 4000);
    }
}

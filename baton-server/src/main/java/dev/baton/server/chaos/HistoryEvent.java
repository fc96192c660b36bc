package dev.baton.server.chaos;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;
import java.util.Objects;

/**
 * One thing that happened during a chaos run, as the harness recorded it. Every time is a {@link System#nanoTime()}
 * reading; on one Linux machine those come from one monotonic clock, so times taken in different node processes and
 * in the harness compare directly. {@code trial} is the trial number, 0 for the setup before the first trial.
 *
 * <p>In the history file each event is one JSON object on its own line, with a {@code type} field naming the kind of
 * event ({@code acquired}, {@code lost}, {@code valid-until}, {@code write}, {@code item-write}, {@code item-read}, {@code crash},
 * {@code pause}, {@code fault}, {@code trial}, {@code worker-command}) and the record's components as the other fields.
 *
 * <p>The leadership events ({@link GroupEvent}) name their election group in {@code group} when the nodes run more
 * than one ({@code baton chaos --groups N}); in a run of one group the field is left out, null in memory, and the
 * lines are as they were before groups existed.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = HistoryEvent.Acquired.class, name = "acquired"),
    @JsonSubTypes.Type(value = HistoryEvent.Lost.class, name = "lost"),
    @JsonSubTypes.Type(value = HistoryEvent.ValidUntil.class, name = "valid-until"),
    @JsonSubTypes.Type(value = HistoryEvent.Write.class, name = "write"),
    @JsonSubTypes.Type(value = HistoryEvent.ItemWrite.class, name = "item-write"),
    @JsonSubTypes.Type(value = HistoryEvent.ItemRead.class, name = "item-read"),
    @JsonSubTypes.Type(value = HistoryEvent.Crash.class, name = "crash"),
    @JsonSubTypes.Type(value = HistoryEvent.Pause.class, name = "pause"),
    @JsonSubTypes.Type(value = HistoryEvent.Fault.class, name = "fault"),
    @JsonSubTypes.Type(value = HistoryEvent.Trial.class, name = "trial"),
    @JsonSubTypes.Type(value = HistoryEvent.WorkerCommand.class, name = "worker-command"),
})
sealed interface HistoryEvent {

    /** The trial the event belongs to; 0 for the setup. */
    int trial();

    /** The time that places the event on the timeline (when it was seen, or when it started). */
    @JsonIgnore
    long time();

    /**
     * An event of one election group's leadership: {@code acquired}, {@code lost}, {@code valid-until} and
     * {@code write}. The checkers that reason about leaders key their state by ({@link #group()}, node).
     */
    sealed interface GroupEvent extends HistoryEvent permits Acquired, Lost, ValidUntil, Write {

        /** The election group, or null in a run whose nodes run one group only. */
        String group();

        /** The node the event is about. */
        String node();
    }

    /** How a write ended, from the writer's side. */
    enum Outcome {
        /** The resource acknowledged the write: it took effect. */
        OK,
        /** The resource answered that it rejected the write: it did not take effect. */
        REFUSED,
        /** No clear answer (timeout, broken connection): it may or may not have taken effect, now or later. */
        UNKNOWN;

        @JsonValue
        String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        @JsonCreator
        static Outcome of(String name) {
            for (Outcome outcome : values()) {
                if (outcome.wireName().equals(name)) {
                    return outcome;
                }
            }
            throw new IllegalArgumentException("unknown write outcome '" + name + "' (known: ok, refused, unknown)");
        }
    }

    /**
     * A node announced it leads under {@code term}. The store granted the lease at some instant between
     * {@code since} (the node sent the request that won it) and {@code mono} (the node learned it).
     */
    record Acquired(int trial, String node, long term, long since, long mono,
            @JsonInclude(JsonInclude.Include.NON_NULL) String group) implements GroupEvent {
        public Acquired {
            requireTrial(trial);
            requireName(node, "node");
            if (since > mono) {
                throw new IllegalArgumentException("acquired: since (" + since + ") is after mono (" + mono + ")");
            }
        }

        /** An acquisition in a run of one group. */
        Acquired(int trial, String node, long term, long since, long mono) {
            this(trial, node, term, since, mono, null);
        }

        @Override
        public long time() {
            return mono;
        }
    }

    /** A node announced it no longer leads under {@code term}, for {@code reason} (as the node names it). */
    record Lost(int trial, String node, long term, String reason, long mono,
            @JsonInclude(JsonInclude.Include.NON_NULL) String group) implements GroupEvent {
        public Lost {
            requireTrial(trial);
            requireName(node, "node");
            Objects.requireNonNull(reason, "lost: reason is missing");
        }

        /** A loss in a run of one group. */
        Lost(int trial, String node, long term, String reason, long mono) {
            this(trial, node, term, reason, mono, null);
        }

        @Override
        public long time() {
            return mono;
        }
    }

    /**
     * At {@code mono}, a node's leadership of {@code term} set or moved its local deadline to {@code deadline}: from
     * then on it counts itself valid until that time at most (a real nanoTime; the node maps its own clock's reading
     * back to real time). The node records one when the leadership begins and one before each move, so the last one
     * of a term is the latest it could have counted itself leader.
     */
    record ValidUntil(int trial, String node, long term, long deadline, long mono,
            @JsonInclude(JsonInclude.Include.NON_NULL) String group) implements GroupEvent {
        public ValidUntil {
            requireTrial(trial);
            requireName(node, "node");
        }

        /** A deadline in a run of one group. */
        ValidUntil(int trial, String node, long term, long deadline, long mono) {
            this(trial, node, term, deadline, mono, null);
        }

        @Override
        public long time() {
            return mono;
        }
    }

    /**
     * A node, believing it leads under {@code term}, sent its {@code seq}-th write to the fenced resource at
     * {@code sent}; {@code answered} is when the answer came back, null if none came.
     */
    record Write(int trial, String node, long term, long seq, long sent, Long answered, Outcome outcome,
            @JsonInclude(JsonInclude.Include.NON_NULL) String group) implements GroupEvent {
        public Write {
            requireTrial(trial);
            requireName(node, "node");
            requireAnswer("write", sent, answered, outcome);
        }

        /** A write in a run of one group. */
        Write(int trial, String node, long term, long seq, long sent, Long answered, Outcome outcome) {
            this(trial, node, term, seq, sent, answered, outcome, null);
        }

        @Override
        public long time() {
            return sent;
        }
    }

    /** A client wrote {@code value} under item {@code id} through {@code node}'s API. */
    record ItemWrite(int trial, String node, String id, String value, long sent, Long answered, Outcome outcome)
            implements HistoryEvent {
        public ItemWrite {
            requireTrial(trial);
            requireName(node, "node");
            requireName(id, "id");
            Objects.requireNonNull(value, "item-write: value is missing");
            requireAnswer("item-write", sent, answered, outcome);
        }

        @Override
        public long time() {
            return sent;
        }
    }

    /** After the trial healed, a read of item {@code id} returned {@code value} (null: no such item). */
    record ItemRead(int trial, String id, String value, long mono) implements HistoryEvent {
        public ItemRead {
            requireTrial(trial);
            requireName(id, "id");
        }

        @Override
        public long time() {
            return mono;
        }
    }

    /** The harness SIGKILLed {@code node}'s process. */
    record Crash(int trial, String node, long mono) implements HistoryEvent {
        public Crash {
            requireTrial(trial);
            requireName(node, "node");
        }

        @Override
        public long time() {
            return mono;
        }
    }

    /** The harness stopped {@code node}'s process (SIGSTOP) at {@code start} and let it go on (SIGCONT) at {@code end}. */
    record Pause(int trial, String node, long start, long end) implements HistoryEvent {
        public Pause {
            requireTrial(trial);
            requireName(node, "node");
            requireOrdered("pause", start, end);
        }

        @Override
        public long time() {
            return start;
        }
    }

    /** The harness injected {@code fault} from {@code start} to {@code end}; {@code target} is the node it aims at, if one. */
    record Fault(int trial, FaultKind fault, String target, long start, long end) implements HistoryEvent {
        public Fault {
            requireTrial(trial);
            Objects.requireNonNull(fault, "fault: fault kind is missing");
            requireOrdered("fault", start, end);
        }

        @Override
        public long time() {
            return start;
        }
    }

    /**
     * One trial: it started at {@code start}, injected {@code fault}, healed everything at {@code healed} and ended
     * at {@code end}. {@code dataLoss} says the fault can make the store forget acknowledged writes. {@code leaderAt}
     * is the first time after {@code healed} the harness saw a leader (null: none before {@code end}), and
     * {@code boundMs} the documented bound, in milliseconds, for a leader after healing.
     */
    record Trial(int trial, FaultKind fault, boolean dataLoss, long start, long healed, long end, Long leaderAt,
            long boundMs) implements HistoryEvent {
        public Trial {
            requireTrial(trial);
            Objects.requireNonNull(fault, "trial: fault kind is missing");
            requireOrdered("trial", start, healed);
            requireOrdered("trial", healed, end);
            if (leaderAt != null && leaderAt < healed) {
                throw new IllegalArgumentException("trial " + trial + ": leaderAt is before healed");
            }
            if (boundMs < 0) {
                throw new IllegalArgumentException("trial " + trial + ": boundMs is negative");
            }
        }

        @Override
        public long time() {
            return start;
        }
    }

    /**
     * At {@code mono}, {@code worker} judged a command of the leader of {@code leaderTerm} (0: none carried) to start
     * ({@code start}) or stop running {@code item}, and carried it out or, as a deposed leader's, refused it. Only
     * carried-out commands change what runs where.
     */
    record WorkerCommand(int trial, String worker, String item, boolean start, long leaderTerm, boolean carriedOut,
            long mono) implements HistoryEvent {
        public WorkerCommand {
            requireTrial(trial);
            requireName(worker, "worker");
            requireName(item, "item");
        }

        @Override
        public long time() {
            return mono;
        }
    }

    private static void requireTrial(int trial) {
        if (trial < 0) {
            throw new IllegalArgumentException("trial number " + trial + " is negative");
        }
    }

    private static void requireName(String value, String field) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(field + " is missing");
        }
    }

    private static void requireOrdered(String what, long earlier, long later) {
        if (earlier > later) {
            throw new IllegalArgumentException(what + ": times out of order (" + earlier + " after " + later + ")");
        }
    }

    private static void requireAnswer(String what, long sent, Long answered, Outcome outcome) {
        Objects.requireNonNull(outcome, what + ": outcome is missing");
        if (answered == null && outcome != Outcome.UNKNOWN) {
            throw new IllegalArgumentException(what + ": outcome " + outcome.wireName() + " needs an answered time");
        }
        if (answered != null && answered < sent) {
            throw new IllegalArgumentException(what + ": answered (" + answered + ") is before sent (" + sent + ")");
        }
    }
}

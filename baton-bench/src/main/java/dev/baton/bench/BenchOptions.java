package dev.baton.bench;

import dev.baton.bench.backend.BackendKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Command-line options shared by every scenario: {@code --n} (measured samples), {@code --warmup} (samples discarded
 * first) and {@code --seed} (for hold times and other random choices), plus {@code --candidates} to run only some
 * candidates of the handover scenario. Each scenario has its own defaults for {@code --n} and {@code --warmup}.
 *
 * <p>{@code --backend redis|postgres} (or both, comma-separated, run one after the other in one invocation) picks the
 * store the handover, failover, first-election and registry scenarios measure; Redis unless given, so commands written
 * before there was a choice keep their meaning. {@code --processes} sets the registry sizes. {@code --duration} (e.g.
 * {@code 30m}, {@code 2m}, {@code 90s}, {@code 1h}) sets how long the soak runs. {@code --groups 1,100,1000},
 * {@code --window-seconds} and {@code --killed-groups} size the scale scenario's rows.
 */
public final class BenchOptions {

    private static final List<String> KNOWN = List.of("--n", "--warmup", "--seed", "--candidates", "--backend",
            "--processes", "--duration", "--groups", "--window-seconds", "--killed-groups");

    private final OptionalInt n;
    private final OptionalInt warmup;
    private final OptionalLong seed;
    private final List<String> candidates;
    private final List<BackendKind> backends;
    private final List<Integer> processes;
    private final Optional<Duration> duration;
    private final List<Integer> groups;
    private final OptionalInt windowSeconds;
    private final OptionalInt killedGroups;

    private BenchOptions(OptionalInt n, OptionalInt warmup, OptionalLong seed, List<String> candidates,
            List<BackendKind> backends, List<Integer> processes, Optional<Duration> duration, List<Integer> groups,
            OptionalInt windowSeconds, OptionalInt killedGroups) {
        this.n = n;
        this.warmup = warmup;
        this.seed = seed;
        this.candidates = candidates;
        this.backends = backends;
        this.processes = processes;
        this.duration = duration;
        this.groups = groups;
        this.windowSeconds = windowSeconds;
        this.killedGroups = killedGroups;
    }

    /**
     * Parses {@code --name value} and {@code --name=value} pairs.
     *
     * @throws IllegalArgumentException naming the option that is unknown, missing its value, or malformed
     */
    public static BenchOptions parse(List<String> args) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            String name = arg;
            String value;
            int eq = arg.indexOf('=');
            if (eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            } else if (i + 1 < args.size()) {
                value = args.get(++i);
            } else {
                throw new IllegalArgumentException("option " + arg + " needs a value");
            }
            if (!KNOWN.contains(name)) {
                throw new IllegalArgumentException("unknown option " + name + " (known: " + KNOWN + ")");
            }
            values.put(name, value);
        }
        List<String> candidates = new ArrayList<>();
        if (values.containsKey("--candidates")) {
            for (String c : values.get("--candidates").split(",")) {
                if (!c.isBlank()) {
                    candidates.add(c.trim());
                }
            }
        }
        return new BenchOptions(positiveInt(values, "--n", 1), positiveInt(values, "--warmup", 0),
                values.containsKey("--seed") ? OptionalLong.of(parseLong("--seed", values.get("--seed")))
                        : OptionalLong.empty(),
                List.copyOf(candidates), backends(values.get("--backend")),
                sizes("--processes", values.get("--processes")), duration(values.get("--duration")),
                sizes("--groups", values.get("--groups")), positiveInt(values, "--window-seconds", 1),
                positiveInt(values, "--killed-groups", 1));
    }

    private static List<BackendKind> backends(String value) {
        if (value == null) {
            return List.of(BackendKind.REDIS);
        }
        List<BackendKind> kinds = new ArrayList<>();
        for (String key : value.split(",")) {
            if (!key.isBlank()) {
                BackendKind kind = BackendKind.parse(key);
                if (kind == BackendKind.ETCD) {
                    // The --backend scenarios look at Redis or PostgreSQL from the outside; etcd has candidates
                    // of its own in the scale scenario.
                    throw new IllegalArgumentException("--backend etcd is not supported: etcd runs in the scale"
                            + " scenario (--candidates baton-etcd,jetcd-election)");
                }
                if (!kinds.contains(kind)) {
                    kinds.add(kind);
                }
            }
        }
        if (kinds.isEmpty()) {
            throw new IllegalArgumentException("--backend needs at least one of redis, postgres");
        }
        return List.copyOf(kinds);
    }

    private static Optional<Duration> duration(String value) {
        if (value == null) {
            return Optional.empty();
        }
        String text = value.trim();
        if (text.length() < 2) {
            throw new IllegalArgumentException("--duration must be a number with s, m or h (e.g. 30m), was '"
                    + value + "'");
        }
        char unit = text.charAt(text.length() - 1);
        long amount = parseLong("--duration", text.substring(0, text.length() - 1));
        long seconds = switch (unit) {
            case 's' -> amount;
            case 'm' -> amount * 60;
            case 'h' -> amount * 3600;
            default -> throw new IllegalArgumentException("--duration must end in s, m or h (e.g. 30m), was '"
                    + value + "'");
        };
        if (seconds < 1 || seconds > 24 * 3600) {
            throw new IllegalArgumentException("--duration must be within [1s, 24h], was '" + value + "'");
        }
        return Optional.of(Duration.ofSeconds(seconds));
    }

    private static List<Integer> sizes(String name, String value) {
        if (value == null) {
            return List.of();
        }
        List<Integer> sizes = new ArrayList<>();
        for (String size : value.split(",")) {
            if (!size.isBlank()) {
                long parsed = parseLong(name, size.trim());
                if (parsed < 1 || parsed > 1_000_000) {
                    throw new IllegalArgumentException(name + " must be within [1, 1000000], was " + parsed);
                }
                sizes.add((int) parsed);
            }
        }
        return List.copyOf(sizes);
    }

    private static OptionalInt positiveInt(Map<String, String> values, String name, int min) {
        if (!values.containsKey(name)) {
            return OptionalInt.empty();
        }
        long value = parseLong(name, values.get(name));
        if (value < min || value > 1_000_000) {
            throw new IllegalArgumentException(name + " must be within [" + min + ", 1000000], was " + value);
        }
        return OptionalInt.of((int) value);
    }

    private static long parseLong(String name, String text) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number, was '" + text + "'", e);
        }
    }

    /** Measured samples, or {@code fallback} if {@code --n} was not given. */
    public int n(int fallback) {
        return n.orElse(fallback);
    }

    /** Discarded warm-up samples, or {@code fallback} if {@code --warmup} was not given. */
    public int warmup(int fallback) {
        return warmup.orElse(fallback);
    }

    /** The random seed; 42 unless {@code --seed} was given, so two runs hold the leader for the same times. */
    public long seed() {
        return seed.orElse(42L);
    }

    /** True if {@code candidate} should run: all run unless {@code --candidates} named a subset. */
    public boolean includes(String candidate) {
        return candidates.isEmpty() || candidates.contains(candidate);
    }

    /** The backends to measure, in the order given; {@code [redis]} unless {@code --backend} was given. */
    public List<BackendKind> backends() {
        return backends;
    }

    /** Registry sizes from {@code --processes}, or {@code fallback} (the backend's default) if it was not given. */
    public List<Integer> processes(List<Integer> fallback) {
        return processes.isEmpty() ? fallback : processes;
    }

    /** How many groups one process holds, per row of the scale scenario: {@code --groups}, or {@code fallback}. */
    public List<Integer> groups(List<Integer> fallback) {
        return groups.isEmpty() ? fallback : groups;
    }

    /** The steady window of the scale scenario in seconds: {@code --window-seconds}, or {@code fallback}. */
    public int windowSeconds(int fallback) {
        return windowSeconds.orElse(fallback);
    }

    /** Groups the killed process holds in the scale scenario: {@code --killed-groups}, or {@code fallback}. */
    public int killedGroups(int fallback) {
        return killedGroups.orElse(fallback);
    }

    /** How long a timed scenario (the soak) runs, if {@code --duration} was given. */
    public Optional<Duration> duration() {
        return duration;
    }

    @Override
    public String toString() {
        return "n=" + (n.isPresent() ? n.getAsInt() : "default") + ", warmup="
                + (warmup.isPresent() ? warmup.getAsInt() : "default") + ", seed=" + seed()
                + (candidates.isEmpty() ? "" : ", candidates=" + candidates)
                + ", backend=" + String.join(",", backends.stream().map(BackendKind::key).toList())
                + (processes.isEmpty() ? "" : ", processes=" + processes)
                + duration.map(d -> ", duration=" + d.toSeconds() + " s").orElse("")
                + (groups.isEmpty() ? "" : ", groups=" + groups)
                + (windowSeconds.isPresent() ? ", window=" + windowSeconds.getAsInt() + " s" : "")
                + (killedGroups.isPresent() ? ", killed-groups=" + killedGroups.getAsInt() : "");
    }
}

package dev.baton.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The hidden fault-harness flags of {@code baton node}, validated: what {@code baton chaos} and the process tests turn
 * on in the nodes they start. None of them is for production use; {@code docs/cli.md} lists them under
 * "Fault-harness flags (hidden)".
 *
 * @param hooks          {@code --chaos-hooks}: every line carries {@code mono} (the real {@link System#nanoTime()}
 *                       when the event happened), {@code leadership-acquired} also {@code since}, fenced writes
 *                       {@code sent} and {@code answered}; the node reads commands ({@code partition}, {@code heal})
 *                       from its stdin
 * @param clockRate      {@code --clock-rate}: the rate the node's clock runs at against the real one (1 = true)
 * @param fencedWritesTo {@code --fenced-writes-to}: the external fenced resource the fenced-write loop writes to
 *                       instead of the store's fenced register
 * @param naive          {@code --naive}: act like the seeds, e.g. write while the node believes it leads without
 *                       checking that its leadership is still valid
 * @param groups         {@code --chaos-groups}: how many elections the node runs on its store, all sharing its
 *                       session: {@code --group} and {@code GROUP-2} to {@code GROUP-N}; with more than one, every
 *                       leadership line names its group (store backends only)
 */
record ChaosSettings(boolean hooks, double clockRate, Optional<FenceAddress> fencedWritesTo, boolean naive,
        int groups) {

    /** The lowest and highest {@code --clock-rate}: a clock 10 % slow or fast is already far beyond real drift. */
    static final double MIN_RATE = 0.9;
    static final double MAX_RATE = 1.1;

    /** No hook, a true clock, writes to the store: a node as operators run it. */
    static final ChaosSettings NONE = new ChaosSettings(false, 1.0, Optional.empty(), false);

    /** The flags of a node that runs one election. */
    ChaosSettings(boolean hooks, double clockRate, Optional<FenceAddress> fencedWritesTo, boolean naive) {
        this(hooks, clockRate, fencedWritesTo, naive, 1);
    }

    ChaosSettings {
        if (groups < 1) {
            throw new IllegalArgumentException("groups must be at least 1, was " + groups);
        }
        Objects.requireNonNull(fencedWritesTo, "fencedWritesTo");
        if (!(clockRate >= MIN_RATE && clockRate <= MAX_RATE)) {
            throw new IllegalArgumentException("clockRate must be within [" + MIN_RATE + ", " + MAX_RATE + "], was "
                    + clockRate);
        }
    }

    /**
     * The names of the elections the node runs, {@code group} first, then {@code group-2} to {@code group-N}: one for
     * a node as operators run it.
     */
    List<String> groupNames(String group) {
        List<String> names = new ArrayList<>();
        names.add(group);
        for (int k = 2; k <= groups; k++) {
            names.add(group + "-" + k);
        }
        return names;
    }

    /** Whether anything differs from a node as operators run it. */
    boolean any() {
        return !equals(NONE);
    }

    /** A {@code HOST:PORT} of an external fenced resource. */
    record FenceAddress(String host, int port) {

        /**
         * Parses {@code HOST:PORT}.
         *
         * @throws IllegalArgumentException naming what is wrong
         */
        static FenceAddress parse(String text) {
            String value = text == null ? "" : text.strip();
            int colon = value.lastIndexOf(':');
            String host = colon < 0 ? "" : value.substring(0, colon).strip();
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            if (host.isEmpty()) {
                throw new IllegalArgumentException("must be HOST:PORT, e.g. 127.0.0.1:7500, was '" + text + "'");
            }
            int port;
            try {
                port = Integer.parseInt(value.substring(colon + 1).strip());
            } catch (NumberFormatException e) {
                port = -1;
            }
            if (port < 1 || port > 65_535) {
                throw new IllegalArgumentException("the port must be a number from 1 to 65535, was '"
                        + value.substring(colon + 1).strip() + "'");
            }
            return new FenceAddress(host, port);
        }

        String format() {
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        }
    }
}

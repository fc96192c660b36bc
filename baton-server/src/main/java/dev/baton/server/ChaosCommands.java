package dev.baton.server;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.time.Clock;
import dev.baton.peer.transport.PeerAddress;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * {@code --chaos-hooks}: the commands the fault harness writes to a node's stdin, one per line, and what they do.
 *
 * <ul>
 *   <li>{@code partition HOST:PORT[,HOST:PORT…]}: on {@code quorum} and {@code bully}, drop every protocol message to
 *       and from those peers (named by their {@code --listen} address) until {@code heal}; a new {@code partition}
 *       replaces the previous one.</li>
 *   <li>{@code duplicate MS [HOST:PORT,…]}, {@code reorder MS [HOST:PORT,…]}, {@code delay MS [HOST:PORT,…]}: on
 *       {@code quorum} and {@code bully}, every protocol message to and from those peers (every peer if none is named)
 *       is delivered twice, the copy up to {@code MS} milliseconds later; held back a random 0 to {@code MS} ms, so
 *       that later ones overtake it; or held back {@code MS} ms, until {@code heal}. A new one replaces the previous
 *       one.</li>
 *   <li>{@code heal}: deliver every message again, at once and once, and withdraw the vote-log faults that have not
 *       struck yet.</li>
 *   <li>{@code vote-log fail-next-fsync}, {@code vote-log lose-next-write}: on {@code quorum} with a
 *       {@code --data-dir}, the vote log's next save fails as on an I/O error of its fsync (the node then stops taking
 *       part), or is reported durable without being written, so that a kill before the save after it loses it
 *       ({@link VoteLogFaults}).</li>
 *   <li>{@code straggle acquire|renew|release}: on a store backend, the node's next call of that kind is held inside
 *       the node, before it reaches the store, while later calls pass; {@code deliver} sends the oldest held call to
 *       the store then, and its answer to the caller, which timed out on it long before ({@link StoreCallFaults}).
 *       The {@code chaos-command} line of {@code deliver} says whether a call was held ({@code delivered}).</li>
 *   <li>{@code pause-after-fenced-write}: on a node running the work cluster ({@code --workers}) on a store backend,
 *       the node stops itself (SIGSTOP) right after the store accepts its next fenced write of an item's assignment,
 *       before the {@code subscribe} goes to the worker ({@link WorkWritePause}); it prints a {@code chaos-command}
 *       line with the {@code item}, {@code term} and {@code mono} first. {@code pause-after-fenced-write withdraw}
 *       disarms it ({@code withdrawn}: whether it was still armed).</li>
 * </ul>
 *
 * <p>Each command that took effect is answered by a {@code chaos-command} line (with the peers cut off, for
 * {@code partition} and {@code heal}). Blank lines are ignored; anything else (an unknown command, a bad address or
 * number, a command the backend has no switch for) prints one {@code error} line and changes nothing. The reader is a
 * daemon thread; end of input just stops it, so a node started with its stdin closed or on {@code /dev/null} runs on
 * unaffected.
 */
final class ChaosCommands {

    private static final String USAGE = "expected 'partition HOST:PORT[,HOST:PORT...]', 'duplicate|reorder|delay MS"
            + " [HOST:PORT,...]', 'heal', 'vote-log fail-next-fsync|lose-next-write', 'straggle acquire|renew|release'"
            + ", 'deliver' or 'pause-after-fenced-write [withdraw]'";

    private final Optional<Partitions> partitions;
    private final Optional<MessageChaos> messages;
    private final Optional<VoteLogFaults> voteLog;
    private final Optional<StoreCallFaults> storeCalls;
    private final Optional<WorkWritePause> workPause;
    private final EventJson json;
    private final JsonLines lines;
    private final Clock clock;

    ChaosCommands(NodeBackend backend, EventJson json, JsonLines lines, Clock clock) {
        this(backend, Optional.empty(), json, lines, clock);
    }

    ChaosCommands(NodeBackend backend, Optional<WorkWritePause> workPause, EventJson json, JsonLines lines,
            Clock clock) {
        this(backend.partitions(), backend.messageChaos(), backend.voteLogFaults(), backend.storeCallFaults(),
                workPause, json, lines, clock);
    }

    ChaosCommands(Optional<Partitions> partitions, Optional<MessageChaos> messages, Optional<VoteLogFaults> voteLog,
            EventJson json, JsonLines lines, Clock clock) {
        this(partitions, messages, voteLog, Optional.empty(), json, lines, clock);
    }

    ChaosCommands(Optional<Partitions> partitions, Optional<MessageChaos> messages, Optional<VoteLogFaults> voteLog,
            Optional<StoreCallFaults> storeCalls, EventJson json, JsonLines lines, Clock clock) {
        this(partitions, messages, voteLog, storeCalls, Optional.empty(), json, lines, clock);
    }

    ChaosCommands(Optional<Partitions> partitions, Optional<MessageChaos> messages, Optional<VoteLogFaults> voteLog,
            Optional<StoreCallFaults> storeCalls, Optional<WorkWritePause> workPause, EventJson json, JsonLines lines,
            Clock clock) {
        this.workPause = workPause;
        this.partitions = partitions;
        this.messages = messages;
        this.voteLog = voteLog;
        this.storeCalls = storeCalls;
        this.json = json;
        this.lines = lines;
        this.clock = clock;
    }

    /** Reads commands from {@code in} on a daemon thread until its end. */
    void startReading(InputStream in) {
        Thread reader = new Thread(() -> readAll(in), "baton-chaos-commands");
        reader.setDaemon(true);
        reader.start();
    }

    private void readAll(InputStream in) {
        try (BufferedReader commands = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = commands.readLine()) != null) {
                apply(line);
            }
        } catch (IOException e) {
            lines.write(json.error("stopped reading commands from stdin: " + e, clock.instant()));
        }
    }

    /** Applies one command line and prints what came of it. */
    void apply(String command) {
        String text = command.strip();
        if (text.isEmpty()) {
            return;
        }
        String[] words = text.split("\\s+");
        String verb = words[0].toLowerCase(Locale.ROOT);
        try {
            switch (verb) {
                case "heal" -> {
                    expect(words.length == 1, "takes no argument");
                    Partitions p = need(partitions, "partitions");
                    p.heal();
                    messages.ifPresent(m -> m.mangle(MessageChaos.Setting.NONE));
                    voteLog.ifPresent(VoteLogFaults::withdraw);
                    printCut(text, p);
                }
                case "partition" -> {
                    expect(words.length == 2, "names the peers to cut off");
                    Set<PeerAddress> peers = peers(words[1]);
                    Partitions p = need(partitions, "partitions");
                    p.partition(peers);
                    printCut(text, p);
                }
                case "duplicate", "reorder", "delay" -> {
                    expect(words.length == 2 || words.length == 3, "takes MS and, optionally, the peers");
                    Duration delay = millis(words[1]);
                    Set<PeerAddress> peers = words.length == 3 ? peers(words[2]) : Set.of();
                    MessageChaos.Mode mode = MessageChaos.Mode.valueOf(verb.toUpperCase(Locale.ROOT));
                    need(messages, "message faults").mangle(new MessageChaos.Setting(mode, delay, peers));
                    lines.write(json.chaosCommand(text, clock.instant()));
                }
                case "vote-log" -> {
                    expect(words.length == 2, "takes 'fail-next-fsync' or 'lose-next-write'");
                    VoteLogFaults log = voteLog.orElseThrow(() -> new IllegalArgumentException(
                            "vote-log faults apply to --backend quorum with --data-dir only"));
                    switch (words[1].toLowerCase(Locale.ROOT)) {
                        case "fail-next-fsync" -> log.failNextFsync();
                        case "lose-next-write" -> log.loseNextWrite();
                        default -> throw new IllegalArgumentException("takes 'fail-next-fsync' or 'lose-next-write'");
                    }
                    lines.write(json.chaosCommand(text, clock.instant()));
                }
                case "straggle" -> {
                    expect(words.length == 2, "takes 'acquire', 'renew' or 'release'");
                    storeCalls().straggle(words[1]);
                    lines.write(json.chaosCommand(text, clock.instant()));
                }
                case "deliver" -> {
                    expect(words.length == 1, "takes no argument");
                    boolean delivered = storeCalls().deliver();
                    lines.write(EventJson.stampField(json.chaosCommand(text, clock.instant()), "delivered", delivered));
                }
                case "pause-after-fenced-write" -> {
                    expect(words.length <= 2, "takes nothing, or 'withdraw'");
                    WorkWritePause pause = workPause.orElseThrow(() -> new IllegalArgumentException("applies to a "
                            + "node that runs the work cluster (--workers) on a store backend only"));
                    if (words.length == 1) {
                        pause.arm();
                        lines.write(json.chaosCommand(text, clock.instant()));
                    } else {
                        expect(words[1].equalsIgnoreCase("withdraw"), "takes nothing, or 'withdraw'");
                        lines.write(EventJson.stampField(json.chaosCommand(text, clock.instant()), "withdrawn",
                                pause.withdraw()));
                    }
                }
                default -> lines.write(json.error("unknown command '" + text + "' (" + USAGE + ")",
                        clock.instant()));
            }
        } catch (IllegalArgumentException e) {
            lines.write(json.error("command '" + text + "': " + e.getMessage(), clock.instant()));
        }
    }

    private StoreCallFaults storeCalls() {
        return storeCalls.orElseThrow(() -> new IllegalArgumentException("store call faults apply to the store "
                + "backends (memory, redis://, postgresql://, etcd://) only"));
    }

    private static void expect(boolean condition, String what) {
        if (!condition) {
            throw new IllegalArgumentException(what);
        }
    }

    private static <T> T need(Optional<T> feature, String what) {
        return feature.orElseThrow(() -> new IllegalArgumentException(what + " apply to --backend quorum and bully"
                + " only"));
    }

    private static Set<PeerAddress> peers(String list) {
        Set<PeerAddress> peers = new LinkedHashSet<>();
        for (String peer : list.split(",")) {
            peers.add(PeerAddress.parse(peer));
        }
        return peers;
    }

    private static Duration millis(String text) {
        try {
            long ms = Long.parseLong(text);
            if (ms < 0) {
                throw new IllegalArgumentException("MS must not be negative: " + text);
            }
            return Duration.ofMillis(ms);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("MS is a number of milliseconds, not '" + text + "'");
        }
    }

    private void printCut(String text, Partitions p) {
        ObjectNode line = json.chaosCommand(text, clock.instant());
        ArrayNode cut = EventJson.stampArray(line, "partitioned");
        p.cut().stream().map(PeerAddress::format).sorted().forEach(cut::add);
        lines.write(line);
    }
}

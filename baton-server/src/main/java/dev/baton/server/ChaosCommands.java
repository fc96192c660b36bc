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
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * {@code --chaos-hooks}: the commands the fault harness writes to a node's stdin, one per line, and what they do.
 *
 * <ul>
 *   <li>{@code partition HOST:PORT[,HOST:PORT…]}: on {@code quorum} and {@code bully}, drop every protocol message to
 *       and from those peers (named by their {@code --listen} address) until {@code heal}; a new {@code partition}
 *       replaces the previous one. Answered by a {@code chaos-command} line.</li>
 *   <li>{@code heal}: deliver every message again. Answered by a {@code chaos-command} line.</li>
 * </ul>
 *
 * <p>Blank lines are ignored; anything else (an unknown command, a bad address, {@code partition} on a store backend)
 * prints one {@code error} line and changes nothing. The reader is a daemon thread; end of input just stops it, so a
 * node started with its stdin closed or on {@code /dev/null} runs on unaffected.
 */
final class ChaosCommands {

    private final Optional<Partitions> partitions;
    private final EventJson json;
    private final JsonLines lines;
    private final Clock clock;

    ChaosCommands(Optional<Partitions> partitions, EventJson json, JsonLines lines,
            Clock clock) {
        this.partitions = partitions;
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
        String[] words = text.split("\\s+", 2);
        String verb = words[0].toLowerCase(Locale.ROOT);
        if (verb.equals("heal") && words.length == 1) {
            withPartitions(text, Partitions::heal);
        } else if (verb.equals("partition") && words.length == 2) {
            Set<PeerAddress> peers = new LinkedHashSet<>();
            for (String peer : words[1].split(",")) {
                try {
                    peers.add(PeerAddress.parse(peer));
                } catch (IllegalArgumentException e) {
                    lines.write(json.error("command '" + text + "': " + e.getMessage(), clock.instant()));
                    return;
                }
            }
            withPartitions(text, p -> p.partition(peers));
        } else {
            lines.write(json.error("unknown command '" + text + "' (expected 'partition HOST:PORT[,HOST:PORT...]' or "
                    + "'heal')", clock.instant()));
        }
    }

    private void withPartitions(String text, Consumer<Partitions> change) {
        if (partitions.isEmpty()) {
            lines.write(json.error("command '" + text + "': partitions apply to --backend quorum and bully only",
                    clock.instant()));
            return;
        }
        Partitions p = partitions.get();
        change.accept(p);
        ObjectNode line = json.chaosCommand(text, clock.instant());
        ArrayNode cut = EventJson.stampArray(line, "partitioned");
        p.cut().stream().map(PeerAddress::format).sorted().forEach(cut::add);
        lines.write(line);
    }
}

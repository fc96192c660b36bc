package dev.baton.server;

import dev.baton.core.ElectionConfig;
import dev.baton.core.store.CoordinationStore;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code baton node}: runs one election node until SIGTERM or SIGINT and prints every event as a JSON line on stdout.
 * This class only turns flags into {@link NodeSettings} and reports what is wrong with them; {@link RunningNode} does
 * the running.
 */
@Command(
        name = "node",
        mixinStandardHelpOptions = true,
        header = "Runs one election node until SIGTERM or SIGINT, printing its events as JSON lines.",
        sortOptions = false,
        description = {
            "Runs one election node until SIGTERM or SIGINT (a leader releases its lease, then the node exits 0).",
            "Prints one JSON object per line on stdout for every event; logs go to stderr."
        })
final class NodeCommand implements Callable<Integer> {

    @Option(names = "--backend", required = true, paramLabel = "URI",
            description = "Where the group's lease lives: " + Backends.FORMS + ".")
    String backend;

    @Option(names = "--group", required = true, paramLabel = "NAME",
            description = "The group to elect a leader for, e.g. orders-scheduler.")
    String group;

    @Option(names = "--node-id", paramLabel = "ID", description = "This node's id in the group (default: a random UUID).")
    String nodeId;

    @Option(names = "--identifier", paramLabel = "NAME", defaultValue = "baton",
            description = "Human-readable name shown in the registry (default: ${DEFAULT-VALUE}).")
    String identifier;

    @Option(names = "--profile", paramLabel = "NAME", defaultValue = "default",
            description = "Timing preset: default (lease TTL 30s, renew 10s, check 5s) or fast (3s, 1s, 500ms).")
    String profile;

    @Option(names = "--lease-ttl", paramLabel = "DUR", converter = DurationConverter.class,
            description = "How long the store keeps an unrenewed lease (overrides the profile).")
    Duration leaseTtl;

    @Option(names = "--renew-interval", paramLabel = "DUR", converter = DurationConverter.class,
            description = "How often the leader renews; must be well below the lease TTL (overrides the profile).")
    Duration renewInterval;

    @Option(names = "--check-interval", paramLabel = "DUR", converter = DurationConverter.class,
            description = "Followers' fallback poll; push notices usually wake them first (overrides the profile).")
    Duration checkInterval;

    @Option(names = "--fenced-writes", paramLabel = "DUR", converter = DurationConverter.class,
            description = "While leading, write (term, node, sequence) to the fenced register every DUR and print "
                    + "a fenced-write line with the store's verdict.")
    Duration fencedWrites;

    @Override
    public Integer call() {
        NodeSettings settings = settings();
        CoordinationStore store = Backends.open(settings.backend());
        RunningNode.runUntilSignalled(settings, store, System.out);
        return BatonCli.EXIT_OK; // not reached: the node ends when a signal's shutdown hook has cleaned up
    }

    /** Validates the flags into settings, before anything connects anywhere. */
    NodeSettings settings() {
        requireText("--group", group);
        requireText("--identifier", identifier);
        String id = nodeId != null ? nodeId : UUID.randomUUID().toString();
        requireText("--node-id", id);
        if (fencedWrites != null && fencedWrites.isZero()) {
            throw CliError.usage("--fenced-writes must be positive, was " + fencedWrites);
        }
        return new NodeSettings(backend, group.strip(), id.strip(), identifier.strip(), profile, config(),
                Optional.ofNullable(fencedWrites));
    }

    private ElectionConfig config() {
        try {
            ElectionConfig.Builder builder = ElectionConfig.profile(profile);
            if (leaseTtl != null) {
                builder.leaseTtl(leaseTtl);
            }
            if (renewInterval != null) {
                builder.renewInterval(renewInterval);
            }
            if (checkInterval != null) {
                builder.checkInterval(checkInterval);
            }
            return builder.build();
        } catch (IllegalArgumentException | NullPointerException e) {
            throw CliError.usage("invalid configuration: " + e.getMessage(), e);
        }
    }

    private static void requireText(String flag, String value) {
        if (value == null || value.isBlank()) {
            throw CliError.usage(flag + " must not be blank");
        }
    }
}

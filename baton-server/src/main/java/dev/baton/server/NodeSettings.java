package dev.baton.server;

import dev.baton.core.ElectionConfig;
import dev.baton.server.internal.api.NodeApi;
import java.time.Duration;
import java.util.Optional;

/**
 * What one {@code baton node} runs, after its flags were parsed and validated: kept apart from the picocli command so
 * that the node's run loop does not depend on how its settings were spelled on the command line.
 *
 * @param backend      the {@code --backend} value as given (may contain a password; never print it)
 * @param group        the election group
 * @param nodeId       this node's id in the group
 * @param identifier   a human-readable name for the registry
 * @param profile      the timing profile the configuration started from ({@code default} or {@code fast})
 * @param config       the validated election timing
 * @param fencedWrites the interval of the fenced-write loop, if it runs
 * @param http         how to serve the HTTP API, if it runs
 */
record NodeSettings(
        String backend,
        String group,
        String nodeId,
        String identifier,
        String profile,
        ElectionConfig config,
        Optional<Duration> fencedWrites,
        Optional<NodeApi.Settings> http) {
}

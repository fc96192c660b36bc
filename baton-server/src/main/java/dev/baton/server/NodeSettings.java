package dev.baton.server;

import dev.baton.server.internal.api.NodeApi;
import java.time.Duration;
import java.util.Optional;

/**
 * What one {@code baton node} runs, after its flags were parsed and validated: kept apart from the picocli command so
 * that the node's run loop does not depend on how its settings were spelled on the command line.
 *
 * @param group        the election group (on {@code peer}, the cluster name)
 * @param nodeId       this node's id in the group; on {@code peer} its listen address, the id the protocol uses
 * @param identifier   a human-readable name for the registry
 * @param profile      the timing profile the configuration started from ({@code default} or {@code fast})
 * @param backend      the backend and its own validated settings
 * @param fencedWrites the interval of the fenced-write loop, if it runs (store backends, or any backend writing to
 *                     an external fenced resource, {@link ChaosSettings#fencedWritesTo()})
 * @param http         how to serve the HTTP API, if it runs
 * @param work         the work cluster the node runs, if any (store backends only)
 * @param chaos        the hidden fault-harness flags ({@link ChaosSettings#NONE} unless {@code baton chaos} or a test
 *                     asked for them)
 */
record NodeSettings(
        String group,
        String nodeId,
        String identifier,
        String profile,
        BackendSpec backend,
        Optional<Duration> fencedWrites,
        Optional<NodeApi.Settings> http,
        Optional<WorkSettings> work,
        ChaosSettings chaos) {

    /** A node without fault-harness flags. */
    NodeSettings(String group, String nodeId, String identifier, String profile, BackendSpec backend,
            Optional<Duration> fencedWrites, Optional<NodeApi.Settings> http, Optional<WorkSettings> work) {
        this(group, nodeId, identifier, profile, backend, fencedWrites, http, work, ChaosSettings.NONE);
    }

    /** A node without a work cluster. */
    NodeSettings(String group, String nodeId, String identifier, String profile, BackendSpec backend,
            Optional<Duration> fencedWrites, Optional<NodeApi.Settings> http) {
        this(group, nodeId, identifier, profile, backend, fencedWrites, http, Optional.empty());
    }

    /** These settings with {@code chaos} as the fault-harness flags. */
    NodeSettings withChaos(ChaosSettings chaos) {
        return new NodeSettings(group, nodeId, identifier, profile, backend, fencedWrites, http, work, chaos);
    }
}

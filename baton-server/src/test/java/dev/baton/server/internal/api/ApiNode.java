package dev.baton.server.internal.api;

import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.NodeInfo;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.time.Clock;
import dev.baton.http.LeaderGate;
import dev.baton.micrometer.MicrometerElectionMetrics;
import dev.baton.testkit.LoopbackPorts;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Optional;

/**
 * One node in a test JVM: an election on a shared store and its HTTP API on a free loopback port, wired as
 * {@code baton node --http} wires them. Closing it stops the API, then the election.
 */
final class ApiNode implements AutoCloseable {

    private final Election election;
    private final NodeApi api;
    private final String url;

    private ApiNode(Election election, NodeApi api, String url) {
        this.election = election;
        this.api = api;
        this.url = url;
    }

    /** Builds and starts a node in FAILOVER mode without a token. */
    static ApiNode start(CoordinationStore store, String group, String id) {
        return builder(store, group, id).start();
    }

    static Builder builder(CoordinationStore store, String group, String id) {
        return new Builder(store, group, id);
    }

    static final class Builder {
        private final CoordinationStore store;
        private final String group;
        private final String id;
        private LeaderGate.Mode mode = LeaderGate.Mode.FAILOVER;
        private Optional<String> token = Optional.empty();
        private boolean startElection = true;
        private ElectionConfig config = ElectionConfig.fast();

        private Builder(CoordinationStore store, String group, String id) {
            this.store = store;
            this.group = group;
            this.id = id;
        }

        Builder mode(LeaderGate.Mode value) {
            this.mode = value;
            return this;
        }

        Builder token(String value) {
            this.token = Optional.of(value);
            return this;
        }

        /** Serve the API but never start the election: a node that knows no leader. */
        Builder withoutElection() {
            this.startElection = false;
            return this;
        }

        Builder config(ElectionConfig value) {
            this.config = value;
            return this;
        }

        ApiNode start() {
            int port = freePort();
            String url = "http://127.0.0.1:" + port;
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            MicrometerElectionMetrics metrics = new MicrometerElectionMetrics(registry, Tags.of("group", group));
            Election election = Baton.election(store).group(group)
                    .node(NodeInfo.of(id, "api-" + id).withApiAddress(url))
                    .config(config).metrics(metrics).build();
            NodeApi api = NodeApi.create(new NodeApi.Settings("127.0.0.1", port, url, mode, token), election, store,
                    registry, metrics, config.storeTimeout(), Clock.system()).start();
            if (startElection) {
                election.start();
            }
            return new ApiNode(election, api, url);
        }
    }

    Election election() {
        return election;
    }

    String id() {
        return election.nodeId();
    }

    /** The API's base URL, e.g. {@code http://127.0.0.1:40123}. */
    String url() {
        return url;
    }

    String url(String path) {
        return url + path;
    }

    @Override
    public void close() {
        api.close();
        election.close();
    }

    @Override
    public String toString() {
        return id();
    }

    static int freePort() {
        return LoopbackPorts.free(1).get(0);
    }
}

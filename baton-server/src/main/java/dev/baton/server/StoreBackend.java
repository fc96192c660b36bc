package dev.baton.server;

import dev.baton.core.Baton;
import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.NodeInfo;
import dev.baton.core.StoreElection;
import dev.baton.core.fencing.FencedRegister;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.time.Clock;
import java.time.Duration;
import java.util.Optional;

/** A {@link NodeBackend} on a {@link CoordinationStore}: the lease election ({@link Baton#election}) on it. */
final class StoreBackend implements NodeBackend {

    private final String group;
    private final CoordinationStore store;
    private final StoreCallFaults callFaults;
    private final ElectionConfig config;
    private volatile StoreElection election;

    /** Takes over {@code store}, which {@link #close()} closes. */
    StoreBackend(String group, CoordinationStore store, ElectionConfig config) {
        this(group, store, null, config);
    }

    /**
     * Takes over {@code store}, which {@link #close()} closes, and runs the node on it through a wrapper whose calls
     * the fault harness can hold back ({@link #storeCallFaults()}).
     */
    static StoreBackend withCallFaults(String group, CoordinationStore store, ElectionConfig config) {
        StoreCallFaults faults = new StoreCallFaults(store);
        return new StoreBackend(group, faults, faults, config);
    }

    private StoreBackend(String group, CoordinationStore store, StoreCallFaults callFaults, ElectionConfig config) {
        this.group = group;
        this.store = store;
        this.callFaults = callFaults;
        this.config = config;
    }

    @Override
    public StoreElection election(NodeInfo self, ElectionMetrics metrics, Clock clock) {
        election = election(group, self, metrics, clock);
        return election;
    }

    /** Same store object, node and config as the node's own election: so it shares the process's session. */
    @Override
    public StoreElection election(String name, NodeInfo self, ElectionMetrics metrics, Clock clock) {
        return Baton.election(store)
                .group(name)
                .node(self)
                .config(config)
                .clock(clock)
                .metrics(metrics)
                .releaseOnShutdown(false)   // RunningNode's own hook closes the election after the API and work
                .build();
    }

    @Override
    public Optional<FencedRegister> fencedRegister(String name) {
        return Optional.ofNullable(election).map(built -> built.fencedRegister(name));
    }

    @Override
    public Optional<CoordinationStore> store() {
        return Optional.of(store);
    }

    @Override
    public Optional<StoreCallFaults> storeCallFaults() {
        return Optional.ofNullable(callFaults);
    }

    @Override
    public String describe() {
        return store.describe();
    }

    @Override
    public Duration callTimeout() {
        return config.storeTimeout();
    }

    @Override
    public void close() {
        store.close();   // the call-fault wrapper closes the store it wraps
    }
}

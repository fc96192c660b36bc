package dev.baton.server.chaos;

import dev.baton.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Each node's own link to the store: one loopback {@link FaultProxy} per node in front of the store's port, so a
 * fault can slow every link, or cut one node off while the others carry on.
 */
final class StoreLinks implements AutoCloseable {

    private final List<FaultProxy> proxies = new ArrayList<>();

    StoreLinks(String storeHost, int storePort, int nodes) {
        try {
            for (int i = 0; i < nodes; i++) {
                proxies.add(FaultProxy.start(storeHost, storePort));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The port node {@code index} connects to instead of the store's. */
    int port(int index) {
        return proxies.get(index).port();
    }

    /** Adds {@code latency} to every node's link. */
    void latency(Duration latency) {
        proxies.forEach(proxy -> proxy.delay(latency));
    }

    /** Node {@code index}'s link forwards nothing, either way, with its connections left open. */
    void blackhole(int index) {
        proxies.get(index).blackhole();
    }

    /** Node {@code index}'s connections are reset, and new ones refused. */
    void reset(int index) {
        proxies.get(index).reset();
    }

    /** Node {@code index}'s next request is held, with its answer, until {@link #heal()}; its other connections pass. */
    void holdNextRequest(int index) {
        proxies.get(index).holdNextRequest();
    }

    /** Every link forwards normally again. */
    void heal() {
        proxies.forEach(FaultProxy::pass);
    }

    @Override
    public void close() {
        proxies.forEach(FaultProxy::close);
    }
}

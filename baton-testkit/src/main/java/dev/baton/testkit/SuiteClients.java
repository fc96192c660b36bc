package dev.baton.testkit;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.CoordinationStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The clients a conformance suite opens on the backend under test, each closed after the test, and the blocking call
 * its checks are written with. Shared by the suites rather than inherited, so no suite's public surface grows.
 */
final class SuiteClients {

    private final Supplier<CoordinationStore> factory;
    private final List<CoordinationStore> opened = new ArrayList<>();

    SuiteClients(Supplier<CoordinationStore> factory) {
        this.factory = factory;
    }

    /** Opens one more client on the same backend, closed by {@link #closeAll()}. */
    CoordinationStore open() {
        CoordinationStore store = factory.get();
        opened.add(store);
        return store;
    }

    void closeAll() {
        opened.forEach(CoordinationStore::close);
        opened.clear();
    }

    /** The call's result, or an {@link AssertionError} naming its failure; at most 10 s. */
    static <T> T get(CompletableFuture<T> future) {
        try {
            return future.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("store call failed: " + e, e);
        }
    }

    /** A node of the suites' own address. */
    static NodeInfo node(String id) {
        return NodeInfo.of(id, "conformance");
    }
}

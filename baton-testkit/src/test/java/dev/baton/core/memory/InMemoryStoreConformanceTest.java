package dev.baton.core.memory;

import dev.baton.core.store.CoordinationStore;
import dev.baton.testkit.StoreConformanceSuite;
import org.junit.jupiter.api.AfterEach;

/**
 * The in-memory store meets the same contract as the server-backed stores. Its "clients" within one test are the
 * same instance, since the store lives in this JVM.
 */
class InMemoryStoreConformanceTest extends StoreConformanceSuite {

    private InMemoryStore current;

    @Override
    protected CoordinationStore newStore() {
        if (current == null) {
            current = new InMemoryStore();
        }
        return current;
    }

    @AfterEach
    void forgetStore() {
        current = null;
    }
}

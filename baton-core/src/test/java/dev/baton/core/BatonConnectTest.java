package dev.baton.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.core.memory.InMemoryStore;
import dev.baton.core.store.CoordinationStore;
import org.junit.jupiter.api.Test;

/** {@link Baton#connect(String)} on core alone: no backend module is on this class path. */
class BatonConnectTest {

    @Test
    void memoryIsAnInMemoryStore() {
        try (CoordinationStore store = Baton.connect(" Memory ")) {
            assertThat(store).isInstanceOf(InMemoryStore.class);
        }
        assertThat(Baton.connects("memory")).isTrue();
    }

    @Test
    void aShippedBackendWithoutItsModuleNamesTheModuleToAdd() {
        assertThat(Baton.connects("redis://127.0.0.1:6379")).isFalse();
        assertThatThrownBy(() -> Baton.connect("redis://127.0.0.1:6379"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("redis:// needs baton-redis on the class path");
        assertThatThrownBy(() -> Baton.connect("postgresql://app:s3cret@127.0.0.1/app"))
                .hasMessage("postgresql:// needs baton-postgres on the class path");
    }

    @Test
    void anUnknownFormListsTheFormsAcceptedWithoutThePassword() {
        assertThatThrownBy(() -> Baton.connect("zookeeper://user:s3cret@127.0.0.1:2181"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unsupported backend 'zookeeper://***@127.0.0.1:2181' (expected memory)");
        assertThatThrownBy(() -> Baton.connect(" "))
                .hasMessage("the backend URI is empty (expected memory)");
    }
}

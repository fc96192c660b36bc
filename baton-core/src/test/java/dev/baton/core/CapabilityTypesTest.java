package dev.baton.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.fencing.FencedRegister;
import dev.baton.core.memory.InMemoryStore;
import java.lang.reflect.Method;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * What an election can do is in its type, not in an exception at run time: a serverless election is an
 * {@link Election} with a read-only {@link Membership}, and only an election on a shared store ({@link StoreElection})
 * has fenced registers and a {@link Registry} to write other processes into.
 */
class CapabilityTypesTest {

    @Test
    void anElectionOffersOnlyWhatEveryBackendHas() {
        assertThat(methodNames(Election.class)).doesNotContain("fencedRegister");
        assertThat(methodNames(Membership.class)).doesNotContain("register", "heartbeat", "unregister")
                .contains("self", "setMetadata", "members", "member", "leaderInfo", "byRole", "followers");
    }

    @Test
    void aStoreElectionAddsFencedRegistersAndTheRegistry() throws NoSuchMethodException {
        assertThat(StoreElection.class.getMethod("fencedRegister", String.class).getReturnType())
                .isEqualTo(FencedRegister.class);
        assertThat(StoreElection.class.getMethod("membership").getReturnType()).isEqualTo(Registry.class);
        assertThat(methodNames(Registry.class)).contains("register", "heartbeat", "unregister");
    }

    @Test
    void theStoreBuilderBuildsAStoreElection() {
        try (InMemoryStore store = new InMemoryStore()) {
            StoreElection election = Baton.election(store).group("capabilities").recordEvents(false).build();
            assertThat(election.membership()).isInstanceOf(Registry.class);
            assertThat(election.fencedRegister("config").name()).isEqualTo("config");
            election.close();
        }
    }

    private static String[] methodNames(Class<?> type) {
        return Arrays.stream(type.getMethods()).map(Method::getName).distinct().toArray(String[]::new);
    }
}

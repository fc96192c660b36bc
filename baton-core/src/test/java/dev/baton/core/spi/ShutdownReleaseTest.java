package dev.baton.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.NodeState;
import dev.baton.core.memory.InMemoryStore;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShutdownReleaseTest {

    /** Records hooks instead of registering them with the JVM; optionally refuses like a JVM that is shutting down. */
    private static final class RecordingHooks implements ShutdownRelease.Hooks {
        final List<Thread> added = new ArrayList<>();
        final List<Thread> removed = new ArrayList<>();
        boolean shuttingDown;

        @Override
        public void add(Thread hook) {
            if (shuttingDown) {
                throw new IllegalStateException("Shutdown in progress");
            }
            added.add(hook);
        }

        @Override
        public void remove(Thread hook) {
            if (shuttingDown) {
                throw new IllegalStateException("Shutdown in progress");
            }
            removed.add(hook);
        }
    }

    private final RecordingHooks hooks = new RecordingHooks();

    @Test
    void theHookRegisteredAtStartIsTheOneRemovedAtClose() {
        try (Election election = election()) {
            ShutdownRelease release = new ShutdownRelease(election, hooks);
            release.register();
            release.register();
            assertThat(hooks.added).hasSize(1);
            assertThat(release.registered()).isTrue();

            release.unregister();
            release.unregister();
            assertThat(hooks.removed).containsExactlyElementsOf(hooks.added);
            assertThat(release.registered()).isFalse();
        }
    }

    @Test
    void theHookClosesTheElection() {
        Election election = election();
        election.start();
        ShutdownRelease release = new ShutdownRelease(election, hooks);
        release.register();

        hooks.added.get(0).run();

        assertThat(election.state()).isEqualTo(NodeState.STOPPED);
        assertThat(election.closeAsync()).isCompleted();
        assertThat(hooks.added.get(0).getName()).isEqualTo("baton-shutdown-release");
    }

    @Test
    void manyElectionsShareOneHookThatClosesThemAll() {
        List<Election> elections = new ArrayList<>();
        List<ShutdownRelease> releases = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            Election election = election();
            election.start();
            ShutdownRelease release = new ShutdownRelease(election, hooks);
            release.register();
            elections.add(election);
            releases.add(release);
        }
        assertThat(hooks.added).hasSize(1);
        releases.get(0).unregister();
        assertThat(hooks.removed).as("others still registered").isEmpty();

        hooks.added.get(0).run();

        assertThat(elections.subList(1, 50)).allSatisfy(e -> assertThat(e.state()).isEqualTo(NodeState.STOPPED));
        assertThat(elections.get(0).state()).as("unregistered before the shutdown").isNotEqualTo(NodeState.STOPPED);
        elections.get(0).close();
    }

    @Test
    void aStartAfterTheCloseRegistersNothing() {
        try (Election election = election()) {
            ShutdownRelease release = new ShutdownRelease(election, hooks);
            release.unregister();
            release.register();
            assertThat(hooks.added).isEmpty();
            assertThat(release.registered()).isFalse();
        }
    }

    @Test
    void aJvmAlreadyShuttingDownIsNotAnError() {
        try (Election election = election()) {
            ShutdownRelease removedLate = new ShutdownRelease(election, hooks);
            removedLate.register();
            RecordingHooks other = new RecordingHooks();
            ShutdownRelease registeredLate = new ShutdownRelease(election, other);
            hooks.shuttingDown = true;
            other.shuttingDown = true;

            assertThatCode(registeredLate::register).doesNotThrowAnyException();
            assertThatCode(removedLate::unregister).doesNotThrowAnyException();
            assertThat(registeredLate.registered()).isFalse();
            assertThat(removedLate.registered()).isFalse();
        }
    }

    @Test
    void noElectionJoinsAHookThatIsAlreadyRunning() {
        Election first = election();
        ShutdownRelease release = new ShutdownRelease(first, hooks);
        release.register();
        hooks.added.get(0).run();

        try (Election late = election()) {
            ShutdownRelease lateRelease = new ShutdownRelease(late, hooks);
            lateRelease.register();
            assertThat(lateRelease.registered()).isFalse();
        }
    }

    private static Election election() {
        return Baton.election(new InMemoryStore()).group("orders").releaseOnShutdown(false).recordEvents(false)
                .build();
    }
}

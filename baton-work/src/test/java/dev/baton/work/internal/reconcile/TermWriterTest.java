package dev.baton.work.internal.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.NodeInfo;
import dev.baton.core.fencing.LeadershipNotValidException;
import dev.baton.core.memory.InMemoryStore;
import dev.baton.core.store.AcquireResult;
import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The work leader's fenced writes are not sent while its leadership is not valid, though the store would take them. */
class TermWriterTest {

    private static final byte[] VALUE = "item".getBytes(StandardCharsets.UTF_8);

    private final FakeClock clock = new FakeClock();
    private final DeterministicScheduler scheduler = new DeterministicScheduler(clock);
    private final InMemoryStore store = new InMemoryStore(clock);
    private final AtomicBoolean valid = new AtomicBoolean(true);
    private final List<String> deposed = new ArrayList<>();
    private final List<Throwable> failures = new ArrayList<>();

    private TermWriter writer() {
        AcquireResult granted = store.leases().acquire("work", NodeInfo.of("p1", "p1"), Duration.ofMinutes(1)).join();
        long term = ((AcquireResult.Granted) granted).term();
        return new TermWriter(store.maps(), "work", "p1", term, scheduler, () -> true, valid::get, deposed::add);
    }

    @Test
    void aWriteWhileTheLeadershipIsNotValidFailsAndIsNotSent() {
        TermWriter writer = writer();
        valid.set(false);
        AtomicBoolean accepted = new AtomicBoolean();

        writer.put("items", "a", VALUE, () -> accepted.set(true), failures::add);
        writer.remove("items", "b", existed -> accepted.set(true), failures::add);
        scheduler.runUntilIdle();

        assertThat(accepted).isFalse();
        assertThat(deposed).as("not valid is not deposed: the leadership may yet be extended").isEmpty();
        assertThat(failures).hasSize(2).allSatisfy(failure -> assertThat(failure)
                .isInstanceOf(LeadershipNotValidException.class)
                .hasMessage("leadership of term " + writer.term() + " is no longer valid (its local deadline passed "
                        + "or it was lost); not writing"));
        assertThat(store.maps().mapGet("work", "items", "a").join()).isEmpty();
    }

    @Test
    void aWriteWhileTheLeadershipIsValidIsStoredUnderItsTerm() {
        TermWriter writer = writer();
        AtomicBoolean accepted = new AtomicBoolean();

        writer.put("items", "a", VALUE, () -> accepted.set(true), failures::add);
        scheduler.runUntilIdle();

        assertThat(accepted).isTrue();
        assertThat(failures).isEmpty();
        assertThat(store.maps().mapGet("work", "items", "a").join())
                .hasValueSatisfying(entry -> assertThat(entry.term()).isEqualTo(writer.term()));
    }
}

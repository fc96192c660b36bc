package dev.baton.core.fencing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.Leadership;
import dev.baton.core.NodeInfo;
import dev.baton.core.memory.InMemoryStore;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.FencedWriteResult;
import dev.baton.core.time.Clock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * {@link FencedRegister#write(Leadership, byte[])} refuses a leadership that is no longer valid without asking the
 * store, even while its term is still the group's newest and the store would accept it.
 */
class FencedRegisterTest {

    /** A clock the test sets by hand; baton-core has no testkit. */
    private static final class ManualClock implements Clock {
        long nanos;

        @Override
        public long nanoTime() {
            return nanos;
        }

        @Override
        public Instant instant() {
            return Instant.EPOCH.plusNanos(nanos);
        }
    }

    private static final byte[] VALUE = "run".getBytes(StandardCharsets.UTF_8);

    private final ManualClock clock = new ManualClock();
    private final InMemoryStore store = new InMemoryStore(clock);
    private final FencedRegister register = new FencedRegister(store.registers(), "jobs", "last-run");

    private long granted() {
        AcquireResult result = store.leases().acquire("jobs", NodeInfo.of("a", "a"), Duration.ofMinutes(1)).join();
        return ((AcquireResult.Granted) result).term();
    }

    @Test
    void aLeadershipPastItsLocalDeadlineIsRefusedAndNothingIsStored() {
        long term = granted();
        Leadership expired = new Leadership("jobs", "a", term, clock.nanoTime() + 1_000, clock, t -> true);
        clock.nanos += 1_000;

        FencedWriteResult result = register.write(expired, VALUE).join();

        assertThat(result).isEqualTo(new FencedWriteResult(false, term));
        assertThat(register.read().join()).isEmpty();
        assertThat(register.writeWithTerm("a", term, VALUE).join().accepted())
                .as("the store alone would still have accepted the term")
                .isTrue();
    }

    @Test
    void aLeadershipItsElectionLostIsRefused() {
        long term = granted();
        Leadership lost = new Leadership("jobs", "a", term, clock.nanoTime() + 1_000, clock, t -> false);

        assertThat(register.write(lost, VALUE).join().accepted()).isFalse();
        assertThat(register.read().join()).isEmpty();
    }

    @Test
    void aValidLeadershipOfTheNewestTermWrites() {
        long term = granted();
        Leadership valid = new Leadership("jobs", "a", term, clock.nanoTime() + 1_000, clock, t -> true);

        assertThat(register.write(valid, VALUE).join()).isEqualTo(new FencedWriteResult(true, term));
        assertThat(register.read().join()).hasValueSatisfying(read -> assertThat(read.term()).isEqualTo(term));
    }
}

package dev.baton.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.spi.LeaseDeadline;
import dev.baton.core.time.Clock;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Instant;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A {@link Leadership} is what listeners and callers get: they must not be able to move its deadline, or a listener
 * could keep a deposed leader valid while another node leads.
 */
class LeadershipTest {

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

    @Test
    void leadershipHasNoPublicMutator() {
        Set<String> publicMethods = Arrays.stream(Leadership.class.getDeclaredMethods())
                .filter(method -> Modifier.isPublic(method.getModifiers()))
                .map(Method::getName)
                .collect(Collectors.toSet());

        assertThat(publicMethods).containsExactlyInAnyOrder("group", "nodeId", "term", "deadlineNanos", "remaining",
                "isValid", "info", "toString");
        assertThat(Arrays.stream(Leadership.class.getDeclaredMethods())
                .filter(method -> Modifier.isPublic(method.getModifiers())))
                .as("a public method returning nothing could only be there to change state")
                .noneMatch(method -> method.getReturnType() == void.class);
        assertThat(Arrays.stream(Leadership.class.getDeclaredFields())
                .filter(field -> !Modifier.isStatic(field.getModifiers())))
                .allMatch(field -> Modifier.isFinal(field.getModifiers()));
        assertThat(Modifier.isFinal(Leadership.class.getModifiers())).as("no subclass can add a mutator").isTrue();
    }

    @Test
    void onlyTheEngineSideHandleMovesTheDeadlineAndOnlyForward() {
        ManualClock clock = new ManualClock();
        LeaseDeadline deadline = new LeaseDeadline(1_000);
        Leadership leadership = deadline.leadership("g", "n", 7, clock, term -> true);

        assertThat(deadline.extendTo(900)).as("moving back").isFalse();
        assertThat(leadership.deadlineNanos()).isEqualTo(1_000);
        assertThat(deadline.extendTo(2_000)).isTrue();
        assertThat(leadership.deadlineNanos()).isEqualTo(2_000);

        clock.nanos = 1_999;
        assertThat(leadership.isValid()).isTrue();
        clock.nanos = 2_000;
        assertThat(leadership.isValid()).isFalse();
    }

    @Test
    void aLeadershipMadeWithAFixedDeadlineNeverMoves() {
        ManualClock clock = new ManualClock();
        Leadership leadership = new Leadership("g", "n", 3, 500, clock, term -> term == 3);

        clock.nanos = 499;
        assertThat(leadership.isValid()).isTrue();
        assertThat(leadership.remaining().toNanos()).isEqualTo(1);
        clock.nanos = 500;
        assertThat(leadership.isValid()).isFalse();
    }
}

package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When a waiting node prints why it has no leader, and what the line looks like. */
class LeaderWaitLinesTest {

    private static final LeaderWaitLines.Pacing PACING =
            new LeaderWaitLines.Pacing(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(15));
    private static final long SECOND = 1_000_000_000L;

    @Test
    void theFirstLineComesAfterTheWaitHasLastedAndThenOneEveryInterval() {
        LeaderWaitLines.Schedule schedule = new LeaderWaitLines.Schedule(PACING);

        List<Long> printedAt = new ArrayList<>();
        for (long second = 100; second <= 140; second++) {
            if (schedule.admit(second * SECOND, true)) {
                printedAt.add(second);
            }
        }

        assertThat(printedAt).containsExactly(105L, 120L, 135L);
        assertThat(schedule.waited(140 * SECOND)).isEqualTo(Duration.ofSeconds(40));
    }

    @Test
    void aLeaderEndsTheWaitAndTheNextWaitStartsAfresh() {
        LeaderWaitLines.Schedule schedule = new LeaderWaitLines.Schedule(PACING);
        assertThat(schedule.admit(0, true)).isFalse();
        assertThat(schedule.admit(5 * SECOND, true)).isTrue();

        assertThat(schedule.admit(6 * SECOND, false)).isFalse();
        assertThat(schedule.waited(6 * SECOND)).isZero();
        assertThat(schedule.admit(7 * SECOND, true)).isFalse();
        assertThat(schedule.admit(11 * SECOND, true)).isFalse();
        assertThat(schedule.admit(12 * SECOND, true)).as("5 s into the new wait").isTrue();
    }

    @Test
    void aNodeThatNeverWaitsPrintsNothing() {
        LeaderWaitLines.Schedule schedule = new LeaderWaitLines.Schedule(PACING);
        for (long second = 0; second < 100; second++) {
            assertThat(schedule.admit(second * SECOND, false)).isFalse();
        }
    }

    @Test
    void theFastProfileSpeaksSooner() {
        assertThat(LeaderWaitLines.Pacing.of("fast").firstAfter())
                .isLessThan(LeaderWaitLines.Pacing.of("default").firstAfter());
        assertThat(LeaderWaitLines.Pacing.of("default").every()).isBetween(Duration.ofSeconds(10),
                Duration.ofSeconds(30));
    }

    @Test
    void theLineFollowsTheNodeConvention() {
        ObjectNode line = new EventJson("n1").waitingForLeader("heard from 0 of the 2 other nodes\nneeded",
                Duration.ofMillis(5_250), Instant.parse("2026-11-24T18:33:28.123456Z"));

        assertThat(line.toString()).isEqualTo("{\"event\":\"waiting-for-leader\",\"node\":\"n1\",\"reason\":"
                + "\"heard from 0 of the 2 other nodes; needed\",\"waitingMs\":5250,\"ts\":\"2026-11-24T18:33:28.123Z\"}");
    }
}

package dev.baton.server.chaos;

import static dev.baton.server.chaos.Events.acquired;
import static dev.baton.server.chaos.Events.crash;
import static dev.baton.server.chaos.Events.fault;
import static dev.baton.server.chaos.Events.lost;
import static dev.baton.server.chaos.Events.pause;
import static dev.baton.server.chaos.Events.trial;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.server.chaos.LeaderlessTime.Holding;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class LeaderlessTimeTest {

    private static final long MS = 1_000_000;

    @Test
    void aTrialWithoutLeadersIsLeaderlessThroughout() {
        History history = History.of(trial(1, FaultKind.NONE, 0, 0, 2000, null));

        assertThat(LeaderlessTime.perTrial(history)).containsEntry(1, 2000 * MS);
    }

    @Test
    void aLeaderFromAnEarlierTrialCoversTheNextOne() {
        History history = History.of(
                acquired(0, "n1", 1, 0, 10),
                trial(1, FaultKind.NONE, 100, 100, 2000, 100.0));

        assertThat(LeaderlessTime.perTrial(history)).containsEntry(1, 0L);
    }

    @Test
    void aKilledLeaderLeavesAGapUntilTheNextAcquisition() {
        History history = History.of(
                acquired(0, "n1", 1, 0, 10),
                trial(1, FaultKind.KILL_NODE, 100, 500, 5000, 1300.0),
                crash(1, "n1", 500),
                acquired(1, "n2", 2, 1200, 1300));

        assertThat(LeaderlessTime.perTrial(history)).containsEntry(1, 800 * MS);
    }

    @Test
    void eachWayOfLosingLeadershipEndsTheHolding() {
        History history = History.of(
                acquired(1, "n1", 1, 0, 0),
                lost(1, "n1", 1, 100),
                acquired(1, "n2", 2, 200, 200),
                pause(1, "n2", 300, 2000),
                acquired(1, "n3", 3, 400, 400),
                fault(1, FaultKind.STORE_BLACKHOLE, "n3", 500, 900),
                fault(1, FaultKind.STORE_LATENCY, "n1", 550, 900),
                acquired(1, "n1", 4, 600, 600),
                acquired(1, "n1", 5, 700, 700),
                fault(1, FaultKind.PARTITION_ONE, "n1", 800, 900));

        assertThat(LeaderlessTime.holdings(history)).containsExactly(
                new Holding("n1", 1, Events.ms(0), Events.ms(100)),
                new Holding("n2", 2, Events.ms(200), Events.ms(300)),
                new Holding("n3", 3, Events.ms(400), Events.ms(500)),
                new Holding("n1", 4, Events.ms(600), Events.ms(700)),
                new Holding("n1", 5, Events.ms(700), Events.ms(800)));
    }

    @Test
    void aLossOfAnotherTermDoesNotEndTheHolding() {
        History history = History.of(
                acquired(1, "n1", 2, 0, 0),
                lost(1, "n1", 1, 50),
                crash(1, "n1", 300));

        assertThat(LeaderlessTime.holdings(history))
                .containsExactly(new Holding("n1", 2, Events.ms(0), Events.ms(300)));
    }

    /** The sweep agrees with counting, millisecond by millisecond, the instants no holding covers. */
    @Property(tries = 300)
    void uncoveredTimeMatchesCountingEachMillisecond(@ForAll("holdings") List<Holding> holdings,
            @ForAll("windows") long[] window) {
        long start = window[0];
        long end = window[0] + window[1];
        long expected = 0;
        for (long instant = start; instant < end; instant++) {
            long at = instant;
            if (holdings.stream().noneMatch(holding -> holding.from() <= at && at < holding.until())) {
                expected++;
            }
        }

        assertThat(LeaderlessTime.uncovered(holdings, start, end)).isEqualTo(expected);
    }

    /** Leaderless time stays within the trial, whatever the nodes did. */
    @Property(tries = 200)
    void leaderlessTimeIsBetweenZeroAndTheTrialsLength(@ForAll("leadershipEvents") List<HistoryEvent> events) {
        List<HistoryEvent> all = new ArrayList<>(events);
        all.add(trial(1, FaultKind.KILL_NODE, 100, 200, 900, null));

        long leaderless = LeaderlessTime.perTrial(History.of(all)).get(1);

        assertThat(leaderless).isBetween(0L, 800 * MS);
    }

    @Provide
    Arbitrary<List<Holding>> holdings() {
        return Combinators.combine(Arbitraries.longs().between(0, 200), Arbitraries.longs().between(0, 60),
                Arbitraries.integers().between(0, 9))
                .as((from, length, open) -> new Holding("n1", 1, from, open == 0 ? Long.MAX_VALUE : from + length))
                .list().ofMaxSize(10);
    }

    @Provide
    Arbitrary<long[]> windows() {
        return Combinators.combine(Arbitraries.longs().between(0, 200), Arbitraries.longs().between(0, 200))
                .as((start, length) -> new long[] {start, length});
    }

    @Provide
    Arbitrary<List<HistoryEvent>> leadershipEvents() {
        Arbitrary<String> nodes = Arbitraries.of("n1", "n2", "n3");
        Arbitrary<Double> times = Arbitraries.doubles().between(0, 1000).ofScale(1);
        Arbitrary<HistoryEvent> acquisition = Combinators.combine(nodes, Arbitraries.longs().between(1, 6), times)
                .as((node, term, at) -> acquired(1, node, term, at, at));
        Arbitrary<HistoryEvent> loss = Combinators.combine(nodes, Arbitraries.longs().between(1, 6), times)
                .as((node, term, at) -> lost(1, node, term, at));
        Arbitrary<HistoryEvent> kill = Combinators.combine(nodes, times).as((node, at) -> crash(1, node, at));
        Arbitrary<HistoryEvent> stop = Combinators.combine(nodes, times).as((node, at) -> pause(1, node, at, at + 50));
        return Arbitraries.oneOf(acquisition, loss, kill, stop).list().ofMaxSize(20);
    }
}

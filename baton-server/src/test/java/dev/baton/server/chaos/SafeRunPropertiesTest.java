package dev.baton.server.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.server.chaos.HistoryEvent.Acquired;
import dev.baton.server.chaos.HistoryEvent.Crash;
import dev.baton.server.chaos.HistoryEvent.ItemRead;
import dev.baton.server.chaos.HistoryEvent.ItemWrite;
import dev.baton.server.chaos.HistoryEvent.Lost;
import dev.baton.server.chaos.HistoryEvent.Outcome;
import dev.baton.server.chaos.HistoryEvent.Trial;
import dev.baton.server.chaos.HistoryEvent.ValidUntil;
import dev.baton.server.chaos.HistoryEvent.Write;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Runs of a correct cluster, generated from a seed: leaders one after another with rising terms (some terms skipped,
 * as after a store restart), each writing under its term until it loses leadership or is killed, the old leader's
 * late writes refused or unanswered, items written one after another and read back. No safety checker may flag
 * them, and they survive the history file unchanged.
 */
class SafeRunPropertiesTest {

    private static final long MS = 1_000_000;

    @Property(tries = 200)
    void noSafetyCheckerFlagsACorrectRun(@ForAll("seeds") long seed) {
        History history = correctRun(new Random(seed));

        for (Checker checker : Checker.standard()) {
            if (checker.safety()) {
                assertThat(checker.check(history)).as(checker.name()).isEmpty();
            }
        }
    }

    @Property(tries = 50)
    void aRunSurvivesTheHistoryFile(@ForAll("seeds") long seed) throws IOException {
        History history = correctRun(new Random(seed));
        Path file = Files.createTempFile("chaos-history", ".jsonl");
        try {
            history.writeTo(file);
            assertThat(History.read(file).events()).isEqualTo(history.events());
        } finally {
            Files.delete(file);
        }
    }

    @Provide
    Arbitrary<Long> seeds() {
        return Arbitraries.longs();
    }

    private static History correctRun(Random random) {
        List<HistoryEvent> events = new ArrayList<>();
        List<String> nodes = List.of("n1", "n2", "n3");
        long now = 5_000 * MS;
        long term = 0;
        String previousLeader = null;
        long previousTerm = 0;
        int trials = 1 + random.nextInt(6);
        for (int trial = 1; trial <= trials; trial++) {
            long start = now;
            FaultKind fault = FaultKind.values()[random.nextInt(FaultKind.values().length)];
            String leader = nodes.get(random.nextInt(nodes.size()));
            term += 1 + random.nextInt(3);
            long since = now + random.nextInt(50) * MS;
            long mono = since + random.nextInt(5) * MS;
            // The leader's deadlines: one as the term begins, one per renewal, each before the leadership ends.
            events.add(new ValidUntil(trial, leader, term, mono + random.nextInt(1000) * MS, mono - 1));
            events.add(new Acquired(trial, leader, term, since, mono));
            now = mono;
            long seq = 0;
            int writes = random.nextInt(5);
            for (int i = 0; i < writes; i++) {
                long sent = now + random.nextInt(10) * MS;
                long answered = sent + random.nextInt(3) * MS;
                events.add(new Write(trial, leader, term, ++seq, sent, answered, Outcome.OK));
                now = answered;
                if (previousLeader != null && random.nextBoolean()) {
                    // The old leader wakes up and tries again under its old term: fenced off.
                    long late = now + MS;
                    events.add(random.nextBoolean()
                            ? new Write(trial, previousLeader, previousTerm, 1000 + i, late, late + MS, Outcome.REFUSED)
                            : new Write(trial, previousLeader, previousTerm, 1000 + i, late, null, Outcome.UNKNOWN));
                }
            }
            String item = "t" + trial + "-1";
            String lastValue = null;
            int itemWrites = random.nextInt(4);
            for (int i = 0; i < itemWrites; i++) {
                long sent = now + random.nextInt(10) * MS;
                long answered = sent + random.nextInt(3) * MS;
                boolean acknowledged = random.nextInt(4) > 0;
                String value = "v" + i;
                events.add(new ItemWrite(trial, leader, item, value, sent, answered,
                        acknowledged ? Outcome.OK : Outcome.REFUSED));
                if (acknowledged) {
                    lastValue = value;
                }
                now = answered;
            }
            long healed = now + random.nextInt(100) * MS;
            if (random.nextBoolean()) {
                events.add(new ValidUntil(trial, leader, term, healed + random.nextInt(1000) * MS, healed - 1));
            }
            if (random.nextBoolean()) {
                events.add(new Crash(trial, leader, healed));
            } else {
                events.add(new Lost(trial, leader, term, "EXPIRED_LOCALLY", healed));
            }
            long end = healed + 500 * MS;
            if (itemWrites > 0) {
                events.add(new ItemRead(trial, item, lastValue, end - MS));
            }
            events.add(new Trial(trial, fault, fault.canLoseData(), start, healed, end, null, 4000));
            previousLeader = leader;
            previousTerm = term;
            now = end + MS;
        }
        // The order of events in a history carries no meaning.
        Collections.shuffle(events, random);
        return History.of(events);
    }
}

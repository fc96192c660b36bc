package dev.baton.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The scenario's output passes through unchanged; the latest heading is remembered. */
class SectionTrackerTest {

    @Test
    void theLatestHeadingIsTheSection() {
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        SectionTracker tracker = new SectionTracker(copy);
        PrintStream out = new PrintStream(tracker, true, StandardCharsets.UTF_8);
        assertThat(tracker.get()).isEmpty();
        out.println("# Title is not a section");
        out.println("## Graceful handover on PostgreSQL");
        assertThat(tracker.get()).isEqualTo("Graceful handover on PostgreSQL");
        out.println("text with ## inside");
        out.print("### Handover on PostgreSQL, held 50-550 ms\n| a | b |\n");
        assertThat(tracker.get()).isEqualTo("Handover on PostgreSQL, held 50-550 ms");
        assertThat(copy.toString(StandardCharsets.UTF_8)).isEqualTo("# Title is not a section\n"
                + "## Graceful handover on PostgreSQL\ntext with ## inside\n"
                + "### Handover on PostgreSQL, held 50-550 ms\n| a | b |\n");
    }
}

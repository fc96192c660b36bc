package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code baton demo} as a user runs it: it shows the failover, exits 0, and leaves no process behind. */
class DemoCommandTest {

    private static final Pattern PID = Pattern.compile("pid (\\d+)");

    private NodeProcess demo;

    @AfterEach
    void stopDemo() {
        if (demo != null) {
            demo.close();
        }
    }

    @Test
    void showsTheFailoverAndCleansUp() {
        demo = NodeProcess.run("demo", List.of("demo"));

        int exit = demo.awaitExit(Duration.ofSeconds(120));

        String narrative = String.join("\n", demo.notJson());
        assertThat(exit).as("%s\n%s", narrative, demo.stderr()).isZero();
        assertThat(narrative)
                .containsPattern("node-\\d leads with term \\d+")
                .containsPattern("Killing leader node-\\d \\(pid \\d+\\) with SIGKILL; its lease had [\\d,]+ ms left")
                .containsPattern("node-\\d took over with term \\d+, [\\d,]+ ms after the kill")
                .containsPattern("Failover [\\d,]+ ms = lease left at the kill")
                .containsPattern("took over with term \\d+, [\\d,]+ ms after the signal")
                .endsWith("Done.");
        Matcher pids = PID.matcher(narrative);
        int seen = 0;
        while (pids.find()) {
            long pid = Long.parseLong(pids.group(1));
            assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).as("process %d after the demo", pid)
                    .isEmpty();
            seen++;
        }
        assertThat(seen).as("pids named: Redis and three nodes, then the killed and the stopped leader")
                .isGreaterThanOrEqualTo(4);
    }
}

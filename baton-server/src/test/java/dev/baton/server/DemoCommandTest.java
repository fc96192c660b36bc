package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code baton demo} as a user runs it, with no server installed: three peer nodes elect a leader, the leader is
 * killed, a successor takes over with a higher term; the demo exits 0 and leaves no process and no data directory
 * behind.
 */
class DemoCommandTest {

    private static final Pattern PID = Pattern.compile("pid (\\d+)");
    private static final Pattern TERM = Pattern.compile("with term (\\d+)");
    private static final Pattern PORT = Pattern.compile("listens for its peers on 127\\.0\\.0\\.1:(\\d+)");

    private NodeProcess demo;

    @AfterEach
    void stopDemo() {
        if (demo != null) {
            demo.close();
        }
    }

    @Test
    void showsTheElectionAndTheFailoverWithoutAServerAndCleansUp() throws Exception {
        List<Path> demoDirsBefore = demoDirs();
        demo = NodeProcess.run("demo", List.of("demo"));

        int exit = demo.awaitExit(Duration.ofSeconds(120));

        String narrative = String.join("\n", demo.notJson());
        assertThat(exit).as("%s\n%s", narrative, demo.stderr()).isZero();
        assertThat(narrative)
                .doesNotContainIgnoringCase("redis")
                .containsPattern("Starting 3 nodes of cluster 'baton-demo' on loopback with no server of any kind")
                .containsPattern("node-\\d leads with term \\d+")
                .containsPattern("Killing leader node-\\d \\(pid \\d+\\) with SIGKILL")
                .containsPattern("node-\\d took over with term \\d+, [\\d,]+ ms after the kill")
                .containsPattern("removed (it|node-\\d) from the members")
                .endsWith("Done.");
        Matcher ports = PORT.matcher(narrative);
        int portsSeen = 0;
        while (ports.find()) {
            portsSeen++;
        }
        assertThat(portsSeen).as("a free loopback port printed per node").isEqualTo(3);
        Matcher terms = TERM.matcher(narrative);
        assertThat(terms.find()).isTrue();
        long first = Long.parseLong(terms.group(1));
        assertThat(terms.find()).isTrue();
        assertThat(Long.parseLong(terms.group(1))).as("the successor's term").isGreaterThan(first);
        Matcher pids = PID.matcher(narrative);
        int seen = 0;
        while (pids.find()) {
            long pid = Long.parseLong(pids.group(1));
            assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).as("process %d after the demo", pid)
                    .isEmpty();
            seen++;
        }
        assertThat(seen).as("pids named: three nodes, then the killed leader").isGreaterThanOrEqualTo(4);
        assertThat(demoDirs()).as("temporary data directories after the demo").isSubsetOf(demoDirsBefore);
    }

    @Test
    void theBullyDemoFoundsJoinsTakesOverAndFailsOver() throws Exception {
        List<Path> demoDirsBefore = demoDirs();
        demo = NodeProcess.run("demo", List.of("demo", "--backend", "bully"));

        int exit = demo.awaitExit(Duration.ofSeconds(120));

        String narrative = String.join("\n", demo.notJson());
        assertThat(exit).as("%s\n%s", narrative, demo.stderr()).isZero();
        assertThat(narrative)
                .contains("with the bully protocol and no server")
                .contains("node-1 found no leader in the file, founded the group as process 1")
                .containsPattern("node-2 read the leader from the file and joined; the leader gave it process id 2")
                .containsPattern("node-3 holds the highest process id: after the hold-down it took over with term \\d+")
                .containsPattern("Killing leader node-3 \\(pid \\d+\\) with SIGKILL")
                .containsPattern("node-2 took over with term \\d+, [\\d,]+ ms after the kill")
                .endsWith("Done.");
        Matcher pids = PID.matcher(narrative);
        while (pids.find()) {
            long pid = Long.parseLong(pids.group(1));
            assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).as("process %d after the demo", pid)
                    .isEmpty();
        }
        assertThat(demoDirs()).as("temporary directories after the demo").isSubsetOf(demoDirsBefore);
    }

    /** The demo's temporary directories ({@code baton-demo-*}) that exist now. */
    private static List<Path> demoDirs() throws Exception {
        try (Stream<Path> entries = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return entries.filter(path -> path.getFileName().toString().startsWith("baton-demo-")).toList();
        }
    }
}

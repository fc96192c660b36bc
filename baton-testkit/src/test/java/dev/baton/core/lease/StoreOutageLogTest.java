package dev.baton.core.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.ElectionEvent.ElectionError;
import dev.baton.core.spi.FailureLog;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A store that stays down must not flood the log: a node writes the first failure of each kind in full, then at most
 * one summary line per interval, then one line when the store answers again. Listeners still get every failure.
 */
class StoreOutageLogTest {

    private static final int OUTAGE_SECONDS = 60;

    private final Cluster cluster = new Cluster();

    @Test
    void aMinuteOfFailingStoreCallsIsABoundedNumberOfLinesPerNode() {
        List<Cluster.Node> nodes = List.of(cluster.start("a"), cluster.start("b"), cluster.start("c"));
        cluster.advance(Duration.ofSeconds(2));

        nodes.forEach(node -> node.link.fail());
        cluster.advance(Duration.ofSeconds(OUTAGE_SECONDS));

        long summariesAllowed = OUTAGE_SECONDS / FailureLog.DEFAULT_INTERVAL.toSeconds();
        for (Cluster.Node node : nodes) {
            List<String> summaries = node.failureLines.stream().filter(l -> l.contains("store still unreachable"))
                    .toList();
            List<String> firsts = node.failureLines.stream().filter(l -> !l.contains("store still unreachable"))
                    .toList();
            assertThat(node.events(ElectionError.class)).as("failures of %s", node.id).hasSizeGreaterThan(100);
            assertThat(summaries).as("summaries of %s", node.id).hasSizeBetween(1, (int) summariesAllowed);
            assertThat(summaries.get(0)).matches("\\[orders] store still unreachable: \\d+ failed calls \\(.+\\) in the"
                    + " last \\d+(\\.\\d)? s; last error: .+");
            // One full line per kind of call (acquire, heartbeat, ...): a handful, never one per failure.
            assertThat(firsts).as("first failures of %s", node.id).hasSizeLessThanOrEqualTo(6).doesNotHaveDuplicates();
            assertThat(firsts.get(0)).startsWith("[orders] ").contains("one summary line every 10 s");
        }

        nodes.forEach(node -> node.link.heal());
        int before = nodes.get(1).failureLines.size();
        cluster.advance(Duration.ofSeconds(5));

        List<String> after = nodes.get(1).failureLines.subList(before, nodes.get(1).failureLines.size());
        assertThat(after).singleElement().asString()
                .matches("\\[orders] store reachable again after (59|60)(\\.\\d)? s; \\d+ calls failed meanwhile");
    }
}

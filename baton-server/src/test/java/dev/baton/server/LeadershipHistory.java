package dev.baton.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Who believed it led, under which term, from when until when, rebuilt from the nodes' JSON lines: a tenure opens at
 * {@code leadership-acquired} and closes at the matching {@code leadership-lost}, or when the test killed the node.
 * The safety checks compare the nodes' {@code ts} stamps; they all come from one machine's clock and are truncated
 * to the millisecond, which keeps their order (two stamps may become equal, never swapped), so the checks use
 * "not after" rather than "before".
 */
final class LeadershipHistory {

    /** One node's leadership of one term; {@code until} is null while it lasts. */
    record Tenure(String node, long term, Instant from, Instant until) {
    }

    private final List<Tenure> tenures;

    private LeadershipHistory(List<Tenure> tenures) {
        this.tenures = tenures;
    }

    /**
     * Rebuilds the history of {@code nodes}.
     *
     * @param killedAt for nodes the test killed, an instant taken just after the kill: their open tenure ends there
     */
    static LeadershipHistory of(List<NodeProcess> nodes, Map<String, Instant> killedAt) {
        List<Tenure> tenures = new ArrayList<>();
        for (NodeProcess node : nodes) {
            Tenure open = null;
            for (JsonNode line : node.lines()) {
                String event = line.path("event").asText();
                if (event.equals("leadership-acquired")) {
                    open = new Tenure(node.name(), line.path("term").asLong(), NodeProcess.ts(line), null);
                } else if (event.equals("leadership-lost") && open != null
                        && open.term() == line.path("term").asLong()) {
                    tenures.add(new Tenure(open.node(), open.term(), open.from(), NodeProcess.ts(line)));
                    open = null;
                }
            }
            if (open != null) {
                tenures.add(new Tenure(open.node(), open.term(), open.from(), killedAt.get(node.name())));
            }
        }
        tenures.sort(Comparator.comparing(Tenure::from).thenComparing(Tenure::term));
        return new LeadershipHistory(List.copyOf(tenures));
    }

    List<Tenure> tenures() {
        return tenures;
    }

    /**
     * No two tenures overlap and each one's term is higher than the one before: at most one node led at any time,
     * and the fencing token only went up.
     *
     * @throws AssertionError naming the offending pair
     */
    void assertOneLeaderAtATimeWithRisingTerms() {
        for (int i = 1; i < tenures.size(); i++) {
            Tenure before = tenures.get(i - 1);
            Tenure after = tenures.get(i);
            if (before.until() == null || before.until().isAfter(after.from())) {
                throw new AssertionError("two leaders at once: " + before + " overlaps " + after + " in " + tenures);
            }
            if (after.term() <= before.term()) {
                throw new AssertionError("term did not rise: " + before + " then " + after + " in " + tenures);
            }
        }
    }

    @Override
    public String toString() {
        return tenures.toString();
    }
}

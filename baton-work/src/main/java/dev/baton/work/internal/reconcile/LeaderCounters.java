package dev.baton.work.internal.reconcile;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A leader's counters, for metrics and tests.
 *
 * @param routed         results published to processes (or handed to this one)
 * @param resent         results published again for want of an acknowledgement
 * @param droppedUnacked results dropped unacknowledged beyond the per-process bound
 * @param waitingAck     results waiting for an acknowledgement now
 * @param desired        desired items
 * @param recorded       items with an actual-state record
 * @param inFlight       subscribes and unsubscribes under way
 * @param rounds         reconciliation rounds run
 * @param badCommands    garbage dropped on {@code worker:master:commands}
 */
public record LeaderCounters(long routed, long resent, long droppedUnacked, long waitingAck, long desired,
                             long recorded, long inFlight, long rounds, long badCommands) {

    /** The counters by name, in the order above: the names {@code WorkCluster.counters()} reports. */
    public Map<String, Long> asMap() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("routed", routed);
        m.put("resent", resent);
        m.put("droppedUnacked", droppedUnacked);
        m.put("waitingAck", waitingAck);
        m.put("desired", desired);
        m.put("recorded", recorded);
        m.put("inFlight", inFlight);
        m.put("rounds", rounds);
        m.put("badCommands", badCommands);
        return m;
    }
}

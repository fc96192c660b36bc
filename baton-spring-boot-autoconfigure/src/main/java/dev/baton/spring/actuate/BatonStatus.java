package dev.baton.spring.actuate;

import dev.baton.core.Election;
import dev.baton.core.LeaderInfo;
import dev.baton.core.Leadership;
import dev.baton.core.StoreContact;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** One election's state as the health contributor and the endpoint show it; read from the node, no store call. */
final class BatonStatus {

    private BatonStatus() {
    }

    /**
     * {@code group}, {@code node}, {@code role}, {@code leader} and {@code term} (when a leader is known),
     * {@code deadlineMarginMillis} (the leader's time left before its local deadline), {@code storeReachable} and
     * {@code problem} (the latest unresolved store failure).
     */
    static Map<String, Object> of(Election election) {
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("group", election.group());
        status.put("node", election.nodeId());
        status.put("role", election.state().name().toLowerCase(Locale.ROOT));
        Optional<LeaderInfo> leader = election.leader();
        leader.ifPresent(known -> {
            status.put("leader", known.nodeId());
            status.put("term", known.term());
        });
        election.leadership().map(Leadership::remaining)
                .ifPresent(remaining -> status.put("deadlineMarginMillis", Math.max(0, remaining.toMillis())));
        election.storeContact().ifPresent(contact -> status.put("storeReachable", contact.reachable()));
        election.problem().ifPresent(problem -> status.put("problem", problem));
        return status;
    }

    /** False when the election has a store and has not heard from it for longer than its limit. */
    static boolean storeReachable(Election election) {
        return election.storeContact().map(StoreContact::reachable).orElse(true);
    }
}

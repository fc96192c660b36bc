package dev.baton.spring.actuate;

import dev.baton.core.Election;
import dev.baton.core.NodeState;
import java.util.Objects;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * The {@code baton} health contributor: UP with the node's role, the leader and its term, and (on the leader) the
 * margin left to its local deadline; DOWN when the store has not answered for longer than its limit (the node can no
 * longer vouch for any leader) or the election is stopped. A follower is healthy: following is its job.
 */
public class BatonHealthIndicator implements HealthIndicator {

    private final Election election;

    public BatonHealthIndicator(Election election) {
        this.election = Objects.requireNonNull(election, "election");
    }

    @Override
    public Health health() {
        boolean down = !BatonStatus.storeReachable(election) || election.state() == NodeState.STOPPED;
        return (down ? Health.down() : Health.up()).withDetails(BatonStatus.of(election)).build();
    }
}

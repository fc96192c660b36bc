package dev.baton.samples.leaderjob;

import dev.baton.spring.BatonLeadershipGrantedEvent;
import dev.baton.spring.BatonLeadershipRevokedEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/** Says when this copy starts and stops leading. */
@Component
public class LeadershipLog {

    private static final Logger log = LoggerFactory.getLogger(LeadershipLog.class);

    @EventListener
    public void granted(BatonLeadershipGrantedEvent event) {
        log.info("leading {} with term {}: the report job runs here", event.group(), event.term());
    }

    @EventListener
    public void revoked(BatonLeadershipRevokedEvent event) {
        log.info("no longer leading {} (term {}, {})", event.group(), event.term(), event.reason());
    }
}

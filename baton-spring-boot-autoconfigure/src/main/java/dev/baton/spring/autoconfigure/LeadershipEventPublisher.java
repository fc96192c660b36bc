package dev.baton.spring.autoconfigure;

import dev.baton.core.Election;
import dev.baton.core.ElectionEvent;
import dev.baton.core.Registration;
import dev.baton.spring.BatonLeadershipGrantedEvent;
import dev.baton.spring.BatonLeadershipRevokedEvent;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes the election's leadership changes as application events, on the election's event thread: a graceful
 * release waits for the {@code BatonLeadershipRevokedEvent} listeners to return before handing the lease on.
 */
final class LeadershipEventPublisher implements InitializingBean, DisposableBean {

    private final Election election;
    private final ApplicationEventPublisher publisher;
    private Registration registration;

    LeadershipEventPublisher(Election election, ApplicationEventPublisher publisher) {
        this.election = election;
        this.publisher = publisher;
    }

    @Override
    public void afterPropertiesSet() {
        registration = election.addListener(this::publish);
    }

    private void publish(ElectionEvent event) {
        if (event instanceof ElectionEvent.LeadershipAcquired acquired) {
            publisher.publishEvent(new BatonLeadershipGrantedEvent(election, acquired.leadership()));
        } else if (event instanceof ElectionEvent.LeadershipLost lost) {
            publisher.publishEvent(new BatonLeadershipRevokedEvent(election, lost.term(), lost.reason()));
        }
    }

    @Override
    public void destroy() {
        if (registration != null) {
            registration.close();
        }
    }
}

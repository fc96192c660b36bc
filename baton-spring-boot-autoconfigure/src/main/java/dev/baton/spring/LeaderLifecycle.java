package dev.baton.spring;

import dev.baton.core.Election;
import dev.baton.core.ElectionEvent;
import dev.baton.core.Leadership;
import dev.baton.core.Registration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.Lifecycle;
import org.springframework.context.SmartLifecycle;

/**
 * Runs other components only while this node leads: starts them (in the order given) when a leadership is granted,
 * stops them (in reverse order) when it ends — on a graceful release before the lease is handed on, on a lost lease
 * at the local deadline, which ends a safety margin before the store can give the lease to another node.
 *
 * <pre>{@code
 * @Bean
 * LeaderLifecycle leaderOnlyConsumers(Election election, MessageListenerContainer orders) {
 *     return new LeaderLifecycle(election, orders);   // the container itself: autoStartup=false
 * }
 * }</pre>
 *
 * <p>The components should not start themselves (for Spring's own lifecycle beans: {@code autoStartup=false}).
 * They are started and stopped on the election's event thread, one event at a time; {@code stop()} must return
 * quickly (well within the lease's safety margin), since the next leader may start once the margin has run out.
 * When this adapter itself is stopped (the application shuts down) it stops them too.
 */
public class LeaderLifecycle implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(LeaderLifecycle.class);

    private final Election election;
    private final List<Lifecycle> components;
    private final Object lock = new Object();
    private Registration registration;
    /** The term the components run for, or 0 while they are stopped. */
    private long runningTerm;

    /** Runs {@code components} while {@code election} leads. */
    public LeaderLifecycle(Election election, Lifecycle... components) {
        this(election, List.of(components));
    }

    /** Runs {@code components} while {@code election} leads. */
    public LeaderLifecycle(Election election, List<? extends Lifecycle> components) {
        this.election = Objects.requireNonNull(election, "election");
        this.components = List.copyOf(components);
    }

    @Override
    public void start() {
        synchronized (lock) {
            if (registration != null) {
                return;
            }
            registration = election.addListener(this::onEvent);
        }
        // Already leading when the adapter starts (a listener added now hears of later events only).
        election.leadership().ifPresent(this::startFor);
    }

    @Override
    public void stop() {
        Registration current;
        synchronized (lock) {
            current = registration;
            registration = null;
        }
        if (current != null) {
            current.close();
        }
        stopComponents();
    }

    @Override
    public boolean isRunning() {
        synchronized (lock) {
            return registration != null;
        }
    }

    /** Whether the components run now (for a leadership this node holds). */
    public boolean componentsRunning() {
        synchronized (lock) {
            return runningTerm != 0;
        }
    }

    /**
     * The default phase: above the election's, so this adapter starts after the election (and starts the components
     * at once if it already leads) and, on shutdown, stops the components before the election releases its lease.
     */
    @Override
    public int getPhase() {
        return DEFAULT_PHASE;
    }

    private void onEvent(ElectionEvent event) {
        if (event instanceof ElectionEvent.LeadershipAcquired acquired) {
            startFor(acquired.leadership());
        } else if (event instanceof ElectionEvent.LeadershipLost lost) {
            synchronized (lock) {
                if (runningTerm != lost.term()) {
                    return;
                }
            }
            stopComponents();
        }
    }

    private void startFor(Leadership leadership) {
        synchronized (lock) {
            if (registration == null || runningTerm == leadership.term() || !leadership.isValid()) {
                return;
            }
            runningTerm = leadership.term();
            List<Lifecycle> started = new ArrayList<>();
            try {
                for (Lifecycle component : components) {
                    component.start();
                    started.add(component);
                }
            } catch (RuntimeException e) {
                log.error("could not start a leader-only component for term {}; stopping the others",
                        leadership.term(), e);
                stopAll(started);
                runningTerm = 0;
            }
        }
    }

    private void stopComponents() {
        synchronized (lock) {
            if (runningTerm == 0) {
                return;
            }
            runningTerm = 0;
            stopAll(components);
        }
    }

    private static void stopAll(List<Lifecycle> running) {
        for (int i = running.size() - 1; i >= 0; i--) {
            try {
                running.get(i).stop();
            } catch (RuntimeException e) {
                log.error("could not stop a leader-only component", e);
            }
        }
    }
}

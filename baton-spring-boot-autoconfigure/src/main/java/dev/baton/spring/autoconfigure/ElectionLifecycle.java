package dev.baton.spring.autoconfigure;

import dev.baton.core.Election;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the election once the application context is ready and closes it when the context stops: a leader stops
 * counting itself leader, {@code BatonLeadershipRevokedEvent} listeners and {@code LeaderLifecycle} components stop
 * its work, then the lease is released so another copy takes over at once. The store is closed later, when the
 * context destroys its beans.
 *
 * <p>Phase {@link #PHASE}: below the default phase, so components of the default phase (among them
 * {@code LeaderLifecycle} adapters) stop before the release; above the web server's graceful shutdown, so the
 * leadership moves on while the server still drains its requests.
 */
final class ElectionLifecycle implements SmartLifecycle {

    /** Below the default phase (so stopped after it) and above the web server's graceful shutdown. */
    static final int PHASE = DEFAULT_PHASE - 512;

    private final Election election;
    private final boolean autoStartup;
    private volatile boolean running;

    ElectionLifecycle(Election election, boolean autoStartup) {
        this.election = election;
        this.autoStartup = autoStartup;
    }

    @Override
    public void start() {
        election.start();
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        election.close();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}

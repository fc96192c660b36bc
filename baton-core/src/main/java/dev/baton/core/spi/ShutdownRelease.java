package dev.baton.core.spi;

import dev.baton.core.Election;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes an election when the JVM shuts down (SIGTERM, Ctrl-C, {@code System.exit}), so that a leader releases its
 * lease or hands over instead of leaving the group leaderless until the lease expires: try-with-resources and
 * {@code finally} blocks do not run on a signal, shutdown hooks do.
 *
 * <p>The election registers the hook when it starts and removes it once it has closed; the builders turn this on by
 * default ({@code releaseOnShutdown}). The hook calls {@link Election#close()}, which stops leading, delivers
 * {@code LeadershipLost} (reason {@code RELEASED}) and releases only after every listener has returned from it (or
 * once the leadership's local deadline has passed), so JVM exit waits at most about the lease TTL for a listener
 * that does not return, plus one store call.
 *
 * <p>JVM shutdown hooks run concurrently and in no order: this one does not wait for the application's own hooks,
 * nor they for it. Not a published API.
 */
public final class ShutdownRelease {

    private static final Logger log = LoggerFactory.getLogger(ShutdownRelease.class);

    /** Where hooks go: the JVM's {@link Runtime}, or a recording twin in tests. */
    interface Hooks {
        void add(Thread hook);

        void remove(Thread hook);

        Hooks RUNTIME = new Hooks() {
            @Override
            public void add(Thread hook) {
                Runtime.getRuntime().addShutdownHook(hook);
            }

            @Override
            public void remove(Thread hook) {
                Runtime.getRuntime().removeShutdownHook(hook);
            }
        };
    }

    private enum State { NEW, REGISTERED, DONE }

    private final Hooks hooks;
    private final Thread hook;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);

    ShutdownRelease(Election election, Hooks hooks) {
        Objects.requireNonNull(election, "election");
        this.hooks = Objects.requireNonNull(hooks, "hooks");
        this.hook = new Thread(() -> {
            log.info("JVM shutting down: closing the election of group {} (a leader releases its lease)",
                    election.group());
            election.close();
        }, "baton-shutdown-release-" + election.group());
    }

    /** A shutdown release that closes {@code election}; nothing is registered until {@link #register()}. */
    public static ShutdownRelease closing(Election election) {
        return new ShutdownRelease(election, Hooks.RUNTIME);
    }

    /**
     * Registers the hook; call when the election starts. Does nothing after {@link #unregister()}, on a second call,
     * or when the JVM is already shutting down (nothing else will close the election then either, but the caller is
     * itself on its way out).
     */
    public void register() {
        if (!state.compareAndSet(State.NEW, State.REGISTERED)) {
            return;
        }
        try {
            hooks.add(hook);
        } catch (IllegalStateException shuttingDown) {
            state.set(State.DONE);
            log.debug("Not closing {} on shutdown: the JVM is already shutting down", hook.getName());
        }
    }

    /**
     * Removes the hook; call once the election has closed. Idempotent; quiet when the JVM is already shutting down
     * (the hook may be the very thread calling this, and the JVM refuses removals then anyway).
     */
    public void unregister() {
        if (state.getAndSet(State.DONE) != State.REGISTERED || Thread.currentThread() == hook) {
            return;
        }
        try {
            hooks.remove(hook);
        } catch (IllegalStateException shuttingDown) {
            // The hooks are running: ours has already closed the election or is about to find it closed.
        }
    }

    /** Whether the hook is registered now. */
    public boolean registered() {
        return state.get() == State.REGISTERED;
    }
}

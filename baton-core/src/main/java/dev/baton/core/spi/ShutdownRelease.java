package dev.baton.core.spi;

import dev.baton.core.Election;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes an election when the JVM shuts down (SIGTERM, Ctrl-C, {@code System.exit}), so that a leader releases its
 * lease or hands over instead of leaving the group leaderless until the lease expires: try-with-resources and
 * {@code finally} blocks do not run on a signal, shutdown hooks do.
 *
 * <p>The election registers when it starts and unregisters once it has closed; the builders turn this on by default
 * ({@code releaseOnShutdown}). All registered elections share one JVM hook, so a process holding thousands of groups
 * adds one hook thread, not thousands. The hook asks every election to close at once ({@link Election#closeAsync()}:
 * their leaders release in parallel), then waits for each with {@link Election#close()}, which stops leading,
 * delivers {@code LeadershipLost} (reason {@code RELEASED}) and releases only after every listener has returned from
 * it (or once the leadership's local deadline has passed). So JVM exit waits at most about the longest lease TTL for
 * a listener that does not return, plus one store call.
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

    /** The one hook of the elections registered with one {@link Hooks}: added for the first, removed after the last. */
    private static final class SharedHook {
        private final Hooks hooks;
        private final Set<ShutdownRelease> members = new LinkedHashSet<>();
        private Thread thread;
        private boolean running;

        SharedHook(Hooks hooks) {
            this.hooks = hooks;
        }

        /** Adds a member, installing the hook for the first; false if the JVM is already shutting down. */
        synchronized boolean add(ShutdownRelease release) {
            if (running) {
                return false;
            }
            if (members.isEmpty()) {
                Thread hook = new Thread(this::closeAll, "baton-shutdown-release");
                try {
                    hooks.add(hook);
                } catch (IllegalStateException shuttingDown) {
                    return false;
                }
                thread = hook;
            }
            members.add(release);
            return true;
        }

        /** Removes a member, and the hook after the last; quiet while the JVM shuts down. */
        synchronized void remove(ShutdownRelease release) {
            if (!members.remove(release) || !members.isEmpty() || running) {
                return;
            }
            Thread hook = thread;
            thread = null;
            try {
                hooks.remove(hook);
            } catch (IllegalStateException shuttingDown) {
                // The hooks are running: ours will find every election closed.
            }
        }

        private void closeAll() {
            List<Election> elections = new ArrayList<>();
            synchronized (this) {
                running = true;
                members.forEach(member -> elections.add(member.election));
            }
            log.info("JVM shutting down: closing {} election(s) (a leader releases its lease): {}", elections.size(),
                    groups(elections));
            elections.forEach(Election::closeAsync);
            elections.forEach(Election::close);
        }

        private static String groups(List<Election> elections) {
            List<String> names = elections.stream().limit(5).map(Election::group).toList();
            return elections.size() > names.size()
                    ? String.join(", ", names) + " and " + (elections.size() - names.size()) + " more"
                    : String.join(", ", names);
        }
    }

    private static final Map<Hooks, SharedHook> SHARED = new IdentityHashMap<>();

    private static SharedHook shared(Hooks hooks) {
        synchronized (SHARED) {
            return SHARED.computeIfAbsent(hooks, SharedHook::new);
        }
    }

    private enum State { NEW, REGISTERED, DONE }

    private final Election election;
    private final SharedHook hook;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);

    ShutdownRelease(Election election, Hooks hooks) {
        this.election = Objects.requireNonNull(election, "election");
        this.hook = shared(Objects.requireNonNull(hooks, "hooks"));
    }

    /** A shutdown release that closes {@code election}; nothing is registered until {@link #register()}. */
    public static ShutdownRelease closing(Election election) {
        return new ShutdownRelease(election, Hooks.RUNTIME);
    }

    /**
     * Registers the election with the hook; call when the election starts. Does nothing after {@link #unregister()},
     * on a second call, or when the JVM is already shutting down (nothing else will close the election then either,
     * but the caller is itself on its way out).
     */
    public void register() {
        if (!state.compareAndSet(State.NEW, State.REGISTERED)) {
            return;
        }
        if (!hook.add(this)) {
            state.set(State.DONE);
            log.debug("Not closing the election of group {} on shutdown: the JVM is already shutting down",
                    election.group());
        }
    }

    /**
     * Unregisters; call once the election has closed. Idempotent; quiet when the JVM is already shutting down (the
     * hook may be the very thread calling this, and the JVM refuses removals then anyway).
     */
    public void unregister() {
        if (state.getAndSet(State.DONE) == State.REGISTERED) {
            hook.remove(this);
        }
    }

    /** Whether the election is registered now. */
    public boolean registered() {
        return state.get() == State.REGISTERED;
    }
}

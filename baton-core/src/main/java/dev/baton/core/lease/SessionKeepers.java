package dev.baton.core.lease;

import dev.baton.core.ElectionConfig;
import dev.baton.core.NodeInfo;
import dev.baton.core.internal.PooledScheduler;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.SessionStore;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Where elections find their store session: one {@link SessionKeeper} per store object, node and timings in this
 * JVM, created for the first election that binds to it and shut down (its session closed) when the last one leaves.
 * So elections built one by one, however they are built, share one session and cost the store one keep-alive.
 *
 * <p>It also refuses a second election of the same group for the same node on the same store while the first is
 * open: the store grants a node the lease it already holds, so two of them could both lead.
 */
final class SessionKeepers {

    /** The timings a session is kept with: elections that differ in one of them get sessions of their own. */
    private record Timings(Duration ttl, Duration renew, Duration check, Duration timeout, Duration retry,
            Duration validity) {

        static Timings of(ElectionConfig config) {
            return new Timings(config.leaseTtl(), config.renewInterval(), config.checkInterval(),
                    config.storeTimeout(), config.retryInterval(), config.localValidity());
        }
    }

    /** Stores compare by identity (no store overrides equals), so one key per store object. */
    private record Key(CoordinationStore store, String nodeId, Timings timings, Clock clock, Scheduler scheduler) {
    }

    private static final class Entry {
        final SessionKeeper keeper;
        final PooledScheduler ownScheduler;
        final Set<String> groups = new HashSet<>();

        Entry(SessionKeeper keeper, PooledScheduler ownScheduler) {
            this.keeper = keeper;
            this.ownScheduler = ownScheduler;
        }
    }

    private static final Map<Key, Entry> KEEPERS = new HashMap<>();

    private SessionKeepers() {
    }

    /** An election's hold on its session keeper; {@link #unbind()} once, when the election has closed. */
    interface Binding {
        SessionKeeper keeper();

        void unbind();
    }

    /**
     * Binds an election of {@code group} to the session of ({@code store}, {@code self}'s id, the timings). The keeper
     * runs on the election's scheduler when that is one the caller drives (a test's deterministic one), so that all
     * of it stays reproducible; otherwise on a serial queue of its own.
     *
     * @throws IllegalStateException if an open election of this node already contends for {@code group} on the store
     */
    static synchronized Binding bind(CoordinationStore store, SessionStore sessions, NodeInfo self, String group,
            ElectionConfig config, Clock clock, Scheduler electionScheduler) {
        Scheduler shared = electionScheduler instanceof PooledScheduler ? null : electionScheduler;
        Key key = new Key(store, self.id(), Timings.of(config), clock, shared);
        Entry entry = KEEPERS.computeIfAbsent(key, k -> {
            PooledScheduler own = shared == null ? new PooledScheduler() : null;
            return new Entry(new SessionKeeper(sessions, self, config, clock, own != null ? own : shared), own);
        });
        if (!entry.groups.add(group)) {
            throw new IllegalStateException("node " + self.id() + " already has an open election of group " + group
                    + " on " + store.describe() + "; close it first (two could both lead)");
        }
        return new Binding() {
            private boolean bound = true;

            @Override
            public SessionKeeper keeper() {
                return entry.keeper;
            }

            @Override
            public void unbind() {
                synchronized (SessionKeepers.class) {
                    if (!bound) {
                        return;
                    }
                    bound = false;
                    entry.groups.remove(group);
                    if (entry.groups.isEmpty() && KEEPERS.get(key) == entry) {
                        KEEPERS.remove(key);
                        entry.keeper.shutDown();
                        if (entry.ownScheduler != null) {
                            entry.ownScheduler.execute(entry.ownScheduler::close);
                        }
                    }
                }
            }
        };
    }
}

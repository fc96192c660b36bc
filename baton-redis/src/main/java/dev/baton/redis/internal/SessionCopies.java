package dev.baton.redis.internal;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The copies of its sessions' keys one store client made on a Redis Cluster (one per session and group slot, see
 * {@link SessionKeys}), so that keeping a session alive extends each of them and closing it deletes them. Only the
 * client that acquires and joins with a session knows its copies: a session is used through one store client.
 */
final class SessionCopies {

    private final Map<String, Set<String>> bySession = new ConcurrentHashMap<>();

    /** Whether this client made {@code key}, a copy of {@code session}'s key. */
    boolean has(String session, String key) {
        Set<String> keys = bySession.get(session);
        return keys != null && keys.contains(key);
    }

    /** Records that {@code key} is a copy of {@code session}'s key. */
    void add(String session, String key) {
        bySession.computeIfAbsent(session, s -> ConcurrentHashMap.newKeySet()).add(key);
    }

    /** The copies of {@code session}'s key made so far. */
    List<String> of(String session) {
        Set<String> keys = bySession.get(session);
        return keys == null ? List.of() : List.copyOf(keys);
    }

    /** Forgets the session (it ended) and returns its copies. */
    List<String> forget(String session) {
        Set<String> keys = bySession.remove(session);
        return keys == null ? List.of() : List.copyOf(keys);
    }
}

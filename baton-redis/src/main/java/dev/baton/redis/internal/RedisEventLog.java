package dev.baton.redis.internal;

import static dev.baton.redis.internal.Replies.utf8;

import dev.baton.core.store.ClusterEvent;
import io.lettuce.core.ScriptOutputType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The cluster event log on Redis (seed 002's {@code cluster_events}): a list per group, newest first, of JSON entries
 * with the seed's column names, trimmed to the retention on every append by {@code append_event.lua}. Ids come from
 * the group's {@code events:seq} counter and times from Redis {@code TIME}. {@code recent_events.lua} decodes the
 * JSON on the server and replies with flat arrays, so this side needs no JSON library.
 */
public final class RedisEventLog {

    /** id, node id, type and time come before the data's key-value pairs in each reply row. */
    private static final int FIXED_FIELDS = 4;

    private final ScriptRunner scripts;
    private final String keyPrefix;
    private final int retention;
    private final StoreFailures failures;

    /** @param retention how many of the newest events to keep per group */
    public RedisEventLog(ScriptRunner scripts, String keyPrefix, int retention, StoreFailures failures) {
        this.scripts = scripts;
        this.keyPrefix = keyPrefix;
        this.retention = retention;
        this.failures = failures;
    }

    /** See {@link dev.baton.core.store.EventLogStore#appendEvent}. */
    public CompletableFuture<Void> append(String group, String nodeId, String type, Map<String, String> data) {
        return failures.guard("append event " + type, () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            List<byte[]> args = new ArrayList<>(3 + 2 * data.size());
            args.add(utf8(nodeId));
            args.add(utf8(type));
            args.add(utf8(Integer.toString(retention)));
            data.forEach((key, value) -> {
                args.add(utf8(key));
                args.add(utf8(value));
            });
            return scripts.<Long>run(Scripts.APPEND_EVENT, ScriptOutputType.INTEGER,
                    new String[] {k.events(), k.eventsSeq()}, args.toArray(byte[][]::new))
                    .thenApply(id -> null);
        });
    }

    /** See {@link dev.baton.core.store.EventLogStore#recentEvents}. */
    public CompletableFuture<List<ClusterEvent>> recent(String group, int limit) {
        if (limit <= 0) {
            // LRANGE 0 -1 would mean "everything".
            return CompletableFuture.completedFuture(List.of());
        }
        return failures.guard("read recent events", () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            return scripts.<List<Object>>run(Scripts.RECENT_EVENTS, ScriptOutputType.MULTI,
                    new String[] {k.events()}, utf8(Integer.toString(limit)))
                    .thenApply(rows -> rows.stream().map(row -> event(Replies.list(row))).toList());
        });
    }

    private static ClusterEvent event(List<?> row) {
        Map<String, String> data = new HashMap<>();
        for (int i = FIXED_FIELDS; i + 1 < row.size(); i += 2) {
            data.put(Replies.text(row.get(i)), Replies.text(row.get(i + 1)));
        }
        return new ClusterEvent(Replies.number(row.get(0)), Replies.text(row.get(1)), Replies.text(row.get(2)),
                data, Instant.ofEpochMilli(Replies.number(row.get(3))));
    }
}

package dev.baton.etcd.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.store.ClusterEvent;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster event log on etcd: one key per event under the group's {@code events/}, whose create revision is the
 * event's id (so ids rise in append order, cluster-wide). Every {@value #TRIM_EVERY}th append of a store trims the
 * group's log to the retention, oldest first, at most {@value #TRIM_BATCH} events per trim. The event's time is the
 * writer's wall clock: etcd has none a client can read.
 */
public final class EtcdEventLog {

    private static final Logger log = LoggerFactory.getLogger(EtcdEventLog.class);
    static final int TRIM_EVERY = 32;
    static final int TRIM_BATCH = 100;

    private final KV kv;
    private final String keyPrefix;
    private final int retention;
    private final EtcdCalls calls;
    private final Clock wallClock;
    private final AtomicLong appends = new AtomicLong();

    public EtcdEventLog(Client client, String keyPrefix, int retention, EtcdCalls calls, Clock wallClock) {
        this.kv = client.getKVClient();
        this.keyPrefix = keyPrefix;
        this.retention = retention;
        this.calls = calls;
        this.wallClock = wallClock;
    }

    public CompletableFuture<Void> appendEvent(String group, String nodeId, String type, Map<String, String> data) {
        ByteSequence prefix = GroupKeys.of(keyPrefix, group).events();
        ByteSequence key = GroupKeys.bytes(GroupKeys.text(prefix) + UUID.randomUUID());
        return calls.guard("append event", () -> kv.put(key, EtcdJson.event(nodeId, type, data, wallClock.instant()))
                .thenApply(put -> {
                    if (appends.incrementAndGet() % TRIM_EVERY == 0) {
                        trim(prefix);
                    }
                    return (Void) null;
                }));
    }

    public CompletableFuture<List<ClusterEvent>> recentEvents(String group, int limit) {
        ByteSequence prefix = GroupKeys.of(keyPrefix, group).events();
        return calls.guard("read events", () -> kv.get(prefix, GetOption.builder().isPrefix(true)
                        .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.DESCEND)
                        .withLimit(Math.max(1, limit)).build())
                .thenApply(get -> {
                    List<ClusterEvent> events = new ArrayList<>();
                    for (KeyValue entry : get.getKvs()) {
                        try {
                            JsonNode json = EtcdJson.event(entry.getValue());
                            events.add(new ClusterEvent(entry.getCreateRevision(), json.path("nodeId").asText(),
                                    json.path("type").asText(), EtcdJson.stringMap(json.path("data")),
                                    Instant.parse(json.path("at").asText())));
                        } catch (RuntimeException e) {
                            log.warn("Skipping malformed event {}: {}", GroupKeys.text(entry.getKey()), e.getMessage());
                        }
                    }
                    return events.subList(0, Math.min(limit, events.size()));
                }));
    }

    /** Deletes the oldest events beyond the retention, in the background; a failed trim is retried by a later one. */
    private void trim(ByteSequence prefix) {
        kv.get(prefix, GetOption.builder().isPrefix(true).withCountOnly(true).build())
                .thenCompose(count -> {
                    long excess = count.getCount() - retention;
                    if (excess <= 0) {
                        return CompletableFuture.completedFuture(null);
                    }
                    return kv.get(prefix, GetOption.builder().isPrefix(true).withKeysOnly(true)
                                    .withSortField(GetOption.SortTarget.CREATE)
                                    .withSortOrder(GetOption.SortOrder.ASCEND)
                                    .withLimit(Math.min(excess, TRIM_BATCH)).build())
                            .thenCompose(oldest -> kv.txn().Then(oldest.getKvs().stream()
                                    .map(entry -> Op.delete(entry.getKey(), DeleteOption.DEFAULT))
                                    .toArray(Op[]::new)).commit());
                })
                .exceptionally(e -> {
                    log.debug("Trimming {} failed: {}", GroupKeys.text(prefix), EtcdCalls.shortReason(e));
                    return null;
                });
    }
}

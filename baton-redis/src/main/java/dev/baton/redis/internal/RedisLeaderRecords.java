package dev.baton.redis.internal;

import static dev.baton.redis.internal.Replies.utf8;

import dev.baton.core.store.LeaderRecord;
import dev.baton.core.store.LeaderRecordWrite;
import io.lettuce.core.KeyValue;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Leader records on Redis (seed 004's {@code GMLeaderSetterGetter}): one hash per group, {@code {…}:leader}, with
 * {@code term}, {@code leader_id}, {@code process_id} and {@code address}, written only by {@code leader_write.lua}, the
 * compare-and-set on the term.
 */
public final class RedisLeaderRecords {

    private final ScriptRunner scripts;
    private final RedisClusterAsyncCommands<String, byte[]> commands;
    private final String keyPrefix;
    private final StoreFailures failures;
    private final ReplicaAcknowledgement acknowledgement;

    /**
     * @param acknowledgement the replica wait applied after a record the primary stored (it may wait for none)
     */
    public RedisLeaderRecords(ScriptRunner scripts, RedisClusterAsyncCommands<String, byte[]> commands,
            String keyPrefix, StoreFailures failures, ReplicaAcknowledgement acknowledgement) {
        this.scripts = scripts;
        this.commands = commands;
        this.keyPrefix = keyPrefix;
        this.failures = failures;
        this.acknowledgement = acknowledgement;
    }

    /** See {@link dev.baton.core.store.LeaderRecordStore#readLeader}. */
    public CompletableFuture<Optional<LeaderRecord>> read(String group) {
        return failures.guard("read leader record of " + group, () -> commands
                .hmget(GroupKeys.of(keyPrefix, group).leader(), "term", "leader_id", "process_id", "address")
                .thenApply(fields -> record(group, fields)));
    }

    /** See {@link dev.baton.core.store.LeaderRecordStore#writeLeader}. */
    public CompletableFuture<LeaderRecordWrite> write(LeaderRecord record) {
        String group = record.group();
        String key = GroupKeys.of(keyPrefix, group).leader();
        return failures.guard("write leader record of " + group, () -> acknowledgement.await(
                "write leader record of " + group, key, scripts.<List<Object>>run(Scripts.LEADER_WRITE,
                        ScriptOutputType.MULTI, new String[] {key}, utf8(Long.toString(record.term())),
                        utf8(record.leaderId()), utf8(Long.toString(record.processId())), utf8(record.address()))
                        .thenApply(reply -> new LeaderRecordWrite(Replies.number(reply.get(0)) == 1L,
                                new LeaderRecord(group, Replies.number(reply.get(1)), Replies.text(reply.get(2)),
                                        Replies.number(reply.get(3)), Replies.text(reply.get(4))))),
                LeaderRecordWrite::accepted));
    }

    private static Optional<LeaderRecord> record(String group, List<KeyValue<String, byte[]>> fields) {
        if (fields.size() != 4 || fields.stream().noneMatch(KeyValue::hasValue)) {
            return Optional.empty();
        }
        if (fields.stream().anyMatch(field -> !field.hasValue())) {
            throw new IllegalStateException("the leader record of " + group + " is incomplete");
        }
        return Optional.of(new LeaderRecord(group, Replies.number(fields.get(0).getValue()),
                Replies.text(fields.get(1).getValue()), Replies.number(fields.get(2).getValue()),
                Replies.text(fields.get(3).getValue())));
    }
}

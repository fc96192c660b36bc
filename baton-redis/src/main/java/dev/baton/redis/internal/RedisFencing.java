package dev.baton.redis.internal;

import static dev.baton.redis.internal.Replies.utf8;

import dev.baton.core.store.FencedValue;
import dev.baton.core.store.FencedWriteResult;
import io.lettuce.core.KeyValue;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Fenced registers on Redis (DESIGN §3 rule 2): a hash per register holding {@code term}, {@code writer} and
 * {@code value}, written by {@code fenced_write.lua} only under the group's newest issued term.
 */
public final class RedisFencing {

    private final ScriptRunner scripts;
    private final RedisClusterAsyncCommands<String, byte[]> commands;
    private final String keyPrefix;
    private final StoreFailures failures;
    private final ReplicaAcknowledgement acknowledgement;

    /**
     * @param acknowledgement the replica wait applied after a write the primary accepted, and before a read is
     *                        returned (it may wait for none)
     */
    public RedisFencing(ScriptRunner scripts, RedisClusterAsyncCommands<String, byte[]> commands, String keyPrefix,
            StoreFailures failures, ReplicaAcknowledgement acknowledgement) {
        this.scripts = scripts;
        this.commands = commands;
        this.keyPrefix = keyPrefix;
        this.failures = failures;
        this.acknowledgement = acknowledgement;
    }

    /** See {@link dev.baton.core.store.FencedStore#fencedWrite}. */
    public CompletableFuture<FencedWriteResult> write(String group, String register, String nodeId, long term,
            byte[] value) {
        return failures.guard("fenced write to " + register, () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            CompletableFuture<FencedWriteResult> written = scripts.<List<Object>>run(Scripts.FENCED_WRITE,
                    ScriptOutputType.MULTI, new String[] {k.term(), k.fenced(register)}, utf8(Long.toString(term)),
                    utf8(nodeId), value)
                    .thenApply(reply -> new FencedWriteResult(Replies.number(reply.get(0)) == 1L,
                            Replies.number(reply.get(1))));
            // A refused write changed nothing, so there is nothing for the replicas to acknowledge.
            return acknowledgement.await("fenced write to " + register, k.fenced(register), written,
                    FencedWriteResult::accepted);
        });
    }

    /** See {@link dev.baton.core.store.FencedStore#fencedRead}. */
    public CompletableFuture<Optional<FencedValue>> read(String group, String register) {
        return failures.guard("fenced read of " + register, () -> {
            GroupKeys k = GroupKeys.of(keyPrefix, group);
            return acknowledgement.confirmRead("fenced read of " + register, k.fenced(register),
                    commands.hmget(k.fenced(register), "term", "writer", "value").thenApply(RedisFencing::value));
        });
    }

    private static Optional<FencedValue> value(List<KeyValue<String, byte[]>> fields) {
        if (fields.size() != 3 || fields.stream().anyMatch(field -> !field.hasValue())) {
            return Optional.empty();
        }
        return Optional.of(new FencedValue(Replies.number(fields.get(0).getValue()),
                Replies.text(fields.get(1).getValue()), fields.get(2).getValue()));
    }
}

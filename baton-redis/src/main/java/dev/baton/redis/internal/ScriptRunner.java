package dev.baton.redis.internal;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Runs the store's Lua scripts by digest ({@code EVALSHA}), so each call sends a 40-byte digest instead of the
 * source. A server that forgot a script (restart, {@code SCRIPT FLUSH}, failover to a replica) answers
 * {@code NOSCRIPT}; the runner then loads the script again and retries once. On a Redis Cluster the runner runs the
 * {@linkplain LuaScript#sharded() sharded} variant of every script, which sends its notices with {@code SPUBLISH}, and
 * {@code SCRIPT LOAD} goes to every node.
 */
public final class ScriptRunner {

    private final RedisClusterAsyncCommands<String, byte[]> commands;
    private final Map<String, LuaScript> variants;

    /** A runner of the scripts as written, sending notices with {@code PUBLISH}. */
    public ScriptRunner(RedisClusterAsyncCommands<String, byte[]> commands) {
        this(commands, false);
    }

    /**
     * @param sharded whether to run every script's {@linkplain LuaScript#sharded() sharded} variant (on a cluster)
     */
    public ScriptRunner(RedisClusterAsyncCommands<String, byte[]> commands, boolean sharded) {
        this.commands = commands;
        this.variants = Scripts.ALL.stream().collect(Collectors.toUnmodifiableMap(LuaScript::name,
                sharded ? LuaScript::sharded : Function.identity()));
    }

    /** Loads every script with {@code SCRIPT LOAD}; fails if the server computes a different digest. */
    public CompletableFuture<Void> loadAll(List<LuaScript> scripts) {
        CompletableFuture<?>[] loads = scripts.stream().map(this::variant).map(this::load)
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(loads);
    }

    /**
     * Runs {@code script} with {@code keys} and {@code args}; the reply has the shape {@code type} describes
     * (integers as {@link Long}, bulk strings as {@code byte[]}, arrays as lists).
     */
    public <T> CompletableFuture<T> run(LuaScript written, ScriptOutputType type, String[] keys, byte[]... args) {
        LuaScript script = variant(written);
        CompletableFuture<T> result = new CompletableFuture<>();
        this.<T>evalsha(script, type, keys, args).whenComplete((value, error) -> {
            if (error == null) {
                result.complete(value);
            } else if (isNoScript(error)) {
                load(script).thenCompose(loaded -> this.<T>evalsha(script, type, keys, args))
                        .whenComplete((retried, retryError) -> {
                            if (retryError == null) {
                                result.complete(retried);
                            } else {
                                result.completeExceptionally(retryError);
                            }
                        });
            } else {
                result.completeExceptionally(error);
            }
        });
        return result;
    }

    private LuaScript variant(LuaScript written) {
        return variants.getOrDefault(written.name(), written);
    }

    private <T> CompletionStage<T> evalsha(LuaScript script, ScriptOutputType type, String[] keys, byte[]... args) {
        return commands.<T>evalsha(script.sha(), type, keys, args);
    }

    private CompletableFuture<Void> load(LuaScript script) {
        return commands.scriptLoad(Replies.utf8(script.source())).toCompletableFuture().thenAccept(sha -> {
            if (!script.sha().equalsIgnoreCase(sha)) {
                throw new IllegalStateException("Redis computed digest " + sha + " for script " + script.name()
                        + ", expected " + script.sha());
            }
        });
    }

    private static boolean isNoScript(Throwable error) {
        Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return e instanceof RedisNoScriptException
                || (e.getMessage() != null && e.getMessage().startsWith("NOSCRIPT"));
    }
}

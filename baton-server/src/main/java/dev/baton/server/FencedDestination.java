package dev.baton.server;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.Leadership;
import dev.baton.core.fencing.FencedRegister;
import dev.baton.core.store.FencedWriteResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Where the {@link FencedWriter} writes: the group's fenced register in the store (the default), or an external
 * fenced resource over TCP ({@link FenceClient}, the hidden {@code --fenced-writes-to}). Called from the writer's one
 * thread only.
 */
interface FencedDestination extends AutoCloseable {

    /**
     * Writes {@code (term, node, seq)} under the leadership's term and returns the destination's verdict.
     *
     * @throws NoAnswer if no verdict came within {@code timeout} or the call failed: the write may or may not have
     *     been applied
     * @throws InterruptedException if the writer is closing
     */
    FencedWriteResult write(Leadership leadership, long seq, Duration timeout) throws NoAnswer, InterruptedException;

    /** Releases what the destination holds (a connection); the store's register holds nothing. */
    @Override
    default void close() {
    }

    /** The store's fenced register {@code register}. */
    static FencedDestination register(FencedRegister register) {
        return (leadership, seq, timeout) -> {
            try {
                return register.writeWithTerm(leadership.nodeId(), leadership.term(), payload(leadership, seq))
                        .get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                throw new NoAnswer("got no answer within " + timeout.toMillis() + " ms", e);
            } catch (ExecutionException e) {
                throw new NoAnswer("failed: " + e.getCause(), e.getCause());
            }
        };
    }

    /** The value written to the store's register: {@code {"term":…,"node":…,"seq":…}}. */
    private static byte[] payload(Leadership leadership, long seq) {
        ObjectNode value = JsonNodeFactory.instance.objectNode();
        value.put("term", leadership.term());
        value.put("node", leadership.nodeId());
        value.put("seq", seq);
        return value.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A write whose outcome is unknown: it timed out or failed before a verdict came back. */
    final class NoAnswer extends Exception {
        private static final long serialVersionUID = 1L;

        NoAnswer(String message, Throwable cause) {
            super(message, cause);
        }
    }
}

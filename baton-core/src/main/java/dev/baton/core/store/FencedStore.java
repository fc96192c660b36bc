package dev.baton.core.store;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Registers that only accept writes from the group's newest term: the store-side fence.
 *
 * <p>A write under {@code term} is accepted only if {@code term} is the newest term the store has issued for the
 * group and is not older than the term of the register's last write. So a leader that was paused past its lease,
 * and has been replaced, is refused even if its successor has not written yet.
 */
public interface FencedStore {

    CompletableFuture<FencedWriteResult> fencedWrite(String group, String register, String nodeId, long term,
            byte[] value);

    CompletableFuture<Optional<FencedValue>> fencedRead(String group, String register);
}

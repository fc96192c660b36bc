package dev.baton.work.internal.reconcile;

import dev.baton.core.store.CoordinationStore;
import dev.baton.work.internal.route.BusCodec;
import java.util.Objects;

/**
 * The group's shared store as this process uses it: where the work cluster keeps its maps and channels, under which
 * group, as which process, and the codec for the messages on its channels.
 *
 * @param processId this process (the election's node id)
 */
public record ClusterStore(CoordinationStore store, String group, String processId, BusCodec codec) {

    public ClusterStore {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(processId, "processId");
        Objects.requireNonNull(codec, "codec");
    }
}

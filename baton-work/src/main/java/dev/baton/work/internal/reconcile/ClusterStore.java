package dev.baton.work.internal.reconcile;

import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.FencedMapStore;
import dev.baton.core.store.MessageBus;
import dev.baton.work.internal.route.BusCodec;
import java.util.Objects;

/**
 * The group's shared state as this process uses it: the fenced maps where the work cluster keeps its items and
 * assignments, the bus that carries its channels, under which group, as which process, and the codec for the messages
 * on its channels. The maps and the bus are usually one {@link CoordinationStore}'s, but need not be: a serverless
 * group replicates them among its members.
 *
 * @param processId this process (the election's node id)
 */
public record ClusterStore(FencedMapStore maps, MessageBus bus, String group, String processId, BusCodec codec) {

    public ClusterStore {
        Objects.requireNonNull(maps, "maps");
        Objects.requireNonNull(bus, "bus");
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(processId, "processId");
        Objects.requireNonNull(codec, "codec");
    }

    /** The maps and bus of {@code store}. */
    public ClusterStore(CoordinationStore store, String group, String processId, BusCodec codec) {
        this(Objects.requireNonNull(store, "store").maps(), store.bus(), group, processId, codec);
    }
}

package dev.baton.server;

import dev.baton.peer.transport.PeerAddress;
import java.util.Set;

/**
 * The switch that cuts a serverless node off from chosen peers, for the fault harness ({@code --chaos-hooks}, the
 * stdin commands {@code partition} and {@code heal}); {@link PartitionableTransport} implements it. Thread-safe.
 */
interface Partitions {

    /** Drops every message to and from {@code peers} from now on, replacing the previous partition. */
    void partition(Set<PeerAddress> peers);

    /** Delivers every message again. */
    void heal();

    /** The peers cut off now; empty when healed. */
    Set<PeerAddress> cut();
}

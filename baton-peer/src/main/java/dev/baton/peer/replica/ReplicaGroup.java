package dev.baton.peer.replica;

import dev.baton.core.Election;
import dev.baton.core.Leadership;
import dev.baton.core.NodeInfo;
import dev.baton.peer.transport.PeerAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * What {@link ReplicatedWorkStore} needs to know about its group: whether this member leads and in which term, where
 * the members' stores listen, and how many of them make a majority. {@link #of} reads it from a serverless election;
 * tests pass their own.
 */
public interface ReplicaGroup {

    /** The metadata key under which a member advertises its store's address ({@code host:port}). */
    String ADDRESS_KEY = "baton.replica";

    /** This member's leadership, if it leads now. */
    Optional<Leadership> leadership();

    /** The store addresses of the group's members, this one's included. */
    CompletableFuture<Set<PeerAddress>> replicas();

    /** How many members' acknowledgements make a majority when {@code known} members are known. */
    int majority(int known);

    /**
     * How many members the group has when {@code known} are known: its configured size where it has one, else
     * {@code known}. A new leader that has heard from this many members has heard from everyone, and a member that
     * restarted empty asks {@code size - majority + 1} others for the newest term (see {@link ReplicatedWorkStore}).
     * Default {@code known}: override it wherever {@link #majority} is of a configured size.
     */
    default int size(int known) {
        return known;
    }

    /** {@code metadata} with this member's store address added, for the node's {@link NodeInfo} before it joins. */
    static Map<String, String> advertise(Map<String, String> metadata, PeerAddress storeAddress) {
        Map<String, String> with = new HashMap<>(metadata);
        with.put(ADDRESS_KEY, storeAddress.format());
        return Map.copyOf(with);
    }

    /**
     * The group of a serverless election whose members advertise their store under {@link #ADDRESS_KEY}.
     *
     * @param clusterSize the configured cluster size (the quorum protocol): a majority is {@code clusterSize / 2 + 1}
     *                    whoever is up. Zero for the bully election, which has no configured size: a majority is then
     *                    of the members the election knows now, so a write reaches most of the live members but two
     *                    sides of a partition can each have their own majority (the bully election is not
     *                    partition-safe either).
     */
    static ReplicaGroup of(Election election, int clusterSize) {
        if (clusterSize < 0) {
            throw new IllegalArgumentException("clusterSize must be 0 (majority of the known members) or positive, was "
                    + clusterSize);
        }
        return new ReplicaGroup() {
            @Override
            public Optional<Leadership> leadership() {
                return election.leadership();
            }

            @Override
            public CompletableFuture<Set<PeerAddress>> replicas() {
                return election.membership().members().thenApply(members -> {
                    Set<PeerAddress> addresses = new TreeSet<>();
                    for (NodeInfo member : members) {
                        String address = member.metadata().get(ADDRESS_KEY);
                        if (address != null) {
                            try {
                                addresses.add(PeerAddress.parse(address));
                            } catch (IllegalArgumentException e) {
                                // A member that advertises nonsense is not a replica; the others still are.
                            }
                        }
                    }
                    return addresses;
                });
            }

            @Override
            public int majority(int known) {
                return size(known) / 2 + 1;
            }

            @Override
            public int size(int known) {
                return clusterSize > 0 ? clusterSize : Math.max(known, 1);
            }
        };
    }
}

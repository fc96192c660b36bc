package dev.baton.testkit;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One Redis Cluster node's view of the cluster, parsed from its {@code CLUSTER NODES} reply: a line per known node,
 * {@code <id> <ip:port@cport[,hostname]> <flags> <master id or -> <ping> <pong> <config epoch> <link> <slot> ...},
 * where a slot entry is {@code N}, {@code N-M}, or {@code [N->-id]} / {@code [N-<-id]} for a slot being migrated or
 * imported (which does not make the node serve it).
 */
final class ClusterNodesView {

    static final int SLOTS = 16384;

    /** One line: a node as the viewing node sees it. */
    record Node(String id, int port, Set<String> flags, String masterId, BitSet slots) {

        boolean isMyself() {
            return flags.contains("myself");
        }

        boolean isMaster() {
            return flags.contains("master");
        }

        /** Marked failing ({@code fail}) or suspected ({@code fail?}) by the viewing node. */
        boolean isFailing() {
            return flags.contains("fail") || flags.contains("fail?");
        }

        boolean serves(int slot) {
            return slots.get(slot);
        }
    }

    private final List<Node> nodes;

    private ClusterNodesView(List<Node> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    /** Parses a {@code CLUSTER NODES} reply. */
    static ClusterNodesView parse(String reply) {
        List<Node> nodes = new ArrayList<>();
        for (String line : reply.split("\n")) {
            String[] fields = line.trim().split(" ");
            if (fields.length < 8) {
                continue;
            }
            String address = fields[1].split("[@,]")[0];
            int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
            BitSet slots = new BitSet(SLOTS);
            for (int i = 8; i < fields.length; i++) {
                String slot = fields[i];
                if (slot.startsWith("[")) {
                    continue;
                }
                int dash = slot.indexOf('-');
                if (dash < 0) {
                    slots.set(Integer.parseInt(slot));
                } else {
                    slots.set(Integer.parseInt(slot.substring(0, dash)), Integer.parseInt(slot.substring(dash + 1)) + 1);
                }
            }
            nodes.add(new Node(fields[0], port, Set.of(fields[2].split(",")), fields[3], slots));
        }
        return new ClusterNodesView(nodes);
    }

    List<Node> nodes() {
        return nodes;
    }

    /** The viewing node's own line. */
    Node myself() {
        return nodes.stream().filter(Node::isMyself).findFirst()
                .orElseThrow(() -> new IllegalStateException("CLUSTER NODES has no 'myself' line"));
    }

    /** The node this view says serves {@code slot}, if any. */
    Optional<Node> ownerOf(int slot) {
        return nodes.stream().filter(n -> n.isMaster() && n.serves(slot)).findFirst();
    }

    /** The node with this id, if the viewing node knows it. */
    Optional<Node> byId(String id) {
        return nodes.stream().filter(n -> n.id().equals(id)).findFirst();
    }

    /** True when the viewing node knows {@code count} nodes and none is still in the handshake. */
    boolean knowsAll(int count) {
        return nodes.size() == count && nodes.stream().noneMatch(n -> n.flags().contains("handshake")
                || n.flags().contains("noaddr"));
    }
}

package dev.baton.server;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The node processes of one test. Closing it kills every node still running, so a failing test leaves nothing
 * behind; {@link #describe()} puts every node's recent output into an assertion message.
 */
final class NodeGroup implements AutoCloseable {

    private final List<NodeProcess> nodes = new ArrayList<>();

    /** Starts {@code baton node --node-id name <args>} and keeps it for cleanup. */
    synchronized NodeProcess start(String name, String... args) {
        NodeProcess node = NodeProcess.node(name, args);
        nodes.add(node);
        return node;
    }

    /** Starts {@code baton <args>} (no {@code --node-id} added: a peer node's id is its listen address). */
    synchronized NodeProcess run(String name, List<String> args) {
        NodeProcess node = NodeProcess.run(name, args);
        nodes.add(node);
        return node;
    }

    synchronized List<NodeProcess> all() {
        return List.copyOf(nodes);
    }

    /** Living nodes whose latest leadership line says they lead. */
    List<NodeProcess> leaders() {
        return all().stream().filter(NodeProcess::isAlive).filter(NodeProcess::believesItLeads).toList();
    }

    /** Every node's recent output. */
    String describe() {
        return all().stream().map(NodeProcess::describe).collect(Collectors.joining("\n"));
    }

    @Override
    public void close() {
        all().forEach(NodeProcess::close);
    }
}

package dev.baton.server.chaos;

import java.util.List;

/** Free TCP ports on 127.0.0.1 for the nodes a run starts. */
final class LoopbackPorts {

    static final String HOST = "127.0.0.1";

    private LoopbackPorts() {
    }

    /** {@code count} distinct ports that were free a moment ago (held open together, then closed). */
    static List<Integer> free(int count) {
        return dev.baton.testkit.LoopbackPorts.free(count);
    }
}

package dev.baton.server;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * The id a store-backed {@code baton node} takes when {@code --node-id} is not given.
 *
 * <p>With {@code --http HOST:PORT} it is {@code <machine host name>:<PORT>}, e.g. {@code build-7:8001}: the same on
 * every restart with the same flags, so a restarted node takes over its own registry entry instead of leaving the old
 * one behind as unreachable. It is unique as long as the node runs: two nodes on one machine cannot bind the same port
 * (the node binds it before it joins the group), and two machines have different host names. Without {@code --http}
 * nothing tells two nodes on one machine apart, so the id is a random UUID, new on every start; give {@code --node-id}
 * for a stable one.
 */
final class NodeIdentity {

    /** The environment variable a host name falls back to when the machine cannot resolve its own. */
    static final String HOSTNAME_ENV = "HOSTNAME";

    private NodeIdentity() {
    }

    /**
     * The default id: {@code host:httpPort} when the node serves HTTP, else a random UUID.
     *
     * @param environment the process environment, for the {@value #HOSTNAME_ENV} fallback
     */
    static String defaultId(Optional<Integer> httpPort, Function<String, String> environment) {
        return httpPort.map(port -> hostName(environment) + ":" + port).orElseGet(() -> UUID.randomUUID().toString());
    }

    /**
     * This machine's host name, lower-cased: what the system resolves for itself, else {@code $HOSTNAME}, else
     * {@code localhost} (a machine with no name at all can run one node per port, which is still unique on it).
     */
    static String hostName(Function<String, String> environment) {
        String name;
        try {
            name = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            name = environment.apply(HOSTNAME_ENV);
        }
        if (name == null || name.isBlank()) {
            name = "localhost";
        }
        return name.strip().toLowerCase(Locale.ROOT);
    }
}

package dev.baton.core.internal;

import dev.baton.core.spi.StoreConnector;
import dev.baton.core.store.CoordinationStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The {@link StoreConnector}s on the class path, looked up by a URI's scheme. Not a published API: use
 * {@link dev.baton.core.Baton#connect(String)}.
 */
public final class StoreConnectors {

    /** Backends Baton ships, so that a URI whose module is missing gets told which module to add. */
    private static final Map<String, String> SHIPPED = Map.of(
            "redis", "baton-redis", "rediss", "baton-redis", "redis-sentinel", "baton-redis",
            "redis-cluster", "baton-redis", "postgresql", "baton-postgres", "postgres", "baton-postgres",
            "etcd", "baton-etcd");

    private StoreConnectors() {
    }

    /** The connector for {@code uri}'s scheme, if a module on the class path offers one. */
    public static Optional<StoreConnector> find(String uri) {
        String scheme = scheme(uri);
        if (scheme.isEmpty()) {
            return Optional.empty();
        }
        for (StoreConnector connector : load()) {
            if (connector.schemes().contains(scheme)) {
                return Optional.of(connector);
            }
        }
        return Optional.empty();
    }

    /**
     * Connects through the connector for {@code uri}.
     *
     * @throws IllegalArgumentException naming the module to add, or the forms accepted, if none opens {@code uri}
     */
    public static CoordinationStore connect(String uri) {
        Optional<StoreConnector> connector = find(uri);
        if (connector.isPresent()) {
            return connector.get().connect(uri.strip());
        }
        String module = SHIPPED.get(scheme(uri));
        if (module != null) {
            throw new IllegalArgumentException(scheme(uri) + ":// needs " + module + " on the class path");
        }
        throw new IllegalArgumentException("unsupported backend '" + redact(uri.strip()) + "' (expected "
                + String.join(", ", forms()) + ")");
    }

    /** {@code memory} and the forms of every connector on the class path. */
    public static List<String> forms() {
        List<String> forms = new ArrayList<>();
        forms.add("memory");
        load().forEach(connector -> forms.addAll(connector.forms()));
        return forms;
    }

    /** The URI without the user information, fit for an error message. */
    public static String redact(String uri) {
        return uri.replaceAll("(?<=://)[^@/]*@", "***@");
    }

    private static String scheme(String uri) {
        String value = uri.strip();
        int end = value.indexOf("://");
        return end <= 0 ? "" : value.substring(0, end).toLowerCase(Locale.ROOT);
    }

    private static List<StoreConnector> load() {
        List<StoreConnector> connectors = new ArrayList<>();
        ServiceLoader.load(StoreConnector.class, StoreConnector.class.getClassLoader()).forEach(connectors::add);
        return connectors;
    }
}

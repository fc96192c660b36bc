package dev.baton.redis;

import io.lettuce.core.RedisURI;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The {@code redis-cluster://[password@]host:port[,host:port…]} form: the seed nodes a cluster client asks for the
 * cluster's topology. Lettuce has no URI scheme for a cluster (its cluster client takes a list of {@code redis://}
 * URIs), so the form is parsed here, strictly: every seed names its port, and there is no database (a cluster has
 * only database 0) and no query.
 */
final class ClusterUri {

    static final String SCHEME = "redis-cluster://";

    private static final String FORM = "redis-cluster://[password@]host:port[,host:port...]";

    private ClusterUri() {
    }

    /**
     * The seeds of {@code uri}, each carrying the password if one is given.
     *
     * @throws IllegalArgumentException naming the problem, never quoting the password
     */
    static List<RedisURI> parse(String uri) {
        String rest = uri.substring(SCHEME.length());
        String password = null;
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            password = rest.substring(0, at);
            rest = rest.substring(at + 1);
            if (password.isEmpty()) {
                throw invalid(uri, "the password before '@' is empty");
            }
        }
        if (rest.endsWith("/")) {
            rest = rest.substring(0, rest.length() - 1);
        }
        if (rest.indexOf('/') >= 0 || rest.indexOf('?') >= 0 || rest.indexOf('#') >= 0) {
            throw invalid(uri, "a cluster has no database, query or master name; give only seed nodes");
        }
        if (rest.isBlank()) {
            throw invalid(uri, "it names no seed node");
        }
        List<RedisURI> seeds = new ArrayList<>();
        for (String seed : rest.split(",", -1)) {
            seeds.add(seed(uri, seed.strip(), password));
        }
        return List.copyOf(seeds);
    }

    /** {@code redis-cluster://host:port,host:port}, without the password. */
    static String describe(List<RedisURI> seeds) {
        return SCHEME + seeds.stream().map(s -> s.getHost() + ":" + s.getPort()).collect(Collectors.joining(","));
    }

    private static RedisURI seed(String uri, String seed, String password) {
        int colon = seed.lastIndexOf(':');
        if (seed.isEmpty() || colon <= 0 || colon == seed.length() - 1) {
            throw invalid(uri, "seed '" + seed + "' is not host:port");
        }
        String host = seed.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(seed.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw invalid(uri, "seed '" + seed + "' has no numeric port");
        }
        if (port < 1 || port > 65_535) {
            throw invalid(uri, "seed '" + seed + "' has a port outside 1-65535");
        }
        RedisURI.Builder builder = RedisURI.builder().withHost(host).withPort(port);
        if (password != null) {
            builder.withPassword(password.toCharArray());
        }
        return builder.build();
    }

    private static IllegalArgumentException invalid(String uri, String problem) {
        return new IllegalArgumentException("uri is not a Redis Cluster URI (" + FORM + "): " + problem + ", was "
                + RedisStoreOptions.Builder.withoutCredentials(uri));
    }
}

package dev.baton.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code waitReplicas=N&waitReplicasTimeout=D} query parameters of a store URI, so that a deployment given only a
 * URI (the node's {@code --backend}, the bully election's {@code --leader-store}) can turn on
 * {@link RedisStoreOptions.Builder#waitReplicas}. They are taken out of the URI before it is parsed as a Redis,
 * Sentinel or cluster URI; the other parameters stay. {@code D} is milliseconds: {@code 200}, {@code 200ms} or
 * {@code 1s}.
 *
 * @param uri      the URI without the two parameters
 * @param replicas {@code waitReplicas}, if given
 * @param timeout  {@code waitReplicasTimeout}, if given
 */
record ReplicaWaitQuery(String uri, OptionalInt replicas, Duration timeout) {

    static final String REPLICAS = "waitReplicas";
    static final String TIMEOUT = "waitReplicasTimeout";

    private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s)?");

    /**
     * Splits the two parameters off {@code uri}.
     *
     * @throws IllegalArgumentException naming the parameter and its value when one is malformed, repeated, or given
     *                                  without the other
     */
    static ReplicaWaitQuery parse(String uri) {
        // After the credentials: a password may hold a '?'.
        int query = uri.indexOf('?', uri.lastIndexOf('@') + 1);
        if (query < 0) {
            return new ReplicaWaitQuery(uri, OptionalInt.empty(), null);
        }
        int fragment = uri.indexOf('#', query);
        int end = fragment < 0 ? uri.length() : fragment;
        List<String> kept = new ArrayList<>();
        String replicas = null;
        String timeout = null;
        for (String parameter : uri.substring(query + 1, end).split("&", -1)) {
            int equals = parameter.indexOf('=');
            String name = equals < 0 ? parameter : parameter.substring(0, equals);
            String value = equals < 0 ? "" : parameter.substring(equals + 1);
            if (name.equals(REPLICAS)) {
                replicas = once(REPLICAS, replicas, value);
            } else if (name.equals(TIMEOUT)) {
                timeout = once(TIMEOUT, timeout, value);
            } else if (!parameter.isEmpty()) {
                kept.add(parameter);
            }
        }
        if (replicas == null && timeout == null) {
            return new ReplicaWaitQuery(uri, OptionalInt.empty(), null);
        }
        if (replicas == null || timeout == null) {
            throw new IllegalArgumentException("uri parameter " + (replicas == null ? TIMEOUT : REPLICAS)
                    + " needs " + (replicas == null ? REPLICAS : TIMEOUT) + " too, as in ?" + REPLICAS + "=1&"
                    + TIMEOUT + "=200ms");
        }
        String rest = uri.substring(0, query) + (kept.isEmpty() ? "" : "?" + String.join("&", kept))
                + uri.substring(end);
        return new ReplicaWaitQuery(rest, OptionalInt.of(count(replicas)), duration(timeout));
    }

    private static String once(String name, String earlier, String value) {
        if (earlier != null) {
            throw new IllegalArgumentException("uri parameter " + name + " is given twice");
        }
        return value;
    }

    private static int count(String value) {
        if (!value.matches("\\d{1,9}")) {
            throw new IllegalArgumentException("uri parameter " + REPLICAS + " must be a number of replicas (0 or "
                    + "more), was '" + value + "'");
        }
        return Integer.parseInt(value);
    }

    private static Duration duration(String value) {
        Matcher matcher = DURATION.matcher(value);
        if (!matcher.matches()) {
            throw new IllegalArgumentException("uri parameter " + TIMEOUT + " must be a duration such as 200ms or 1s,"
                    + " was '" + value + "'");
        }
        long amount = Long.parseLong(matcher.group(1));
        return "s".equals(matcher.group(2)) ? Duration.ofSeconds(amount) : Duration.ofMillis(amount);
    }
}

package dev.baton.server.internal.api;

import io.javalin.http.Context;
import io.javalin.http.RequestLogger;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * {@code http_server_requests_seconds}: every request's latency by {@code method}, {@code uri} (the route template,
 * e.g. {@code /work/items/{id}}, never the raw path, so ids do not multiply the series) and {@code status}. Requests
 * that matched no route are counted as {@code NOT_FOUND}, {@code METHOD_NOT_ALLOWED}, or {@code STATIC} (the
 * dashboard's files).
 */
final class HttpMetrics implements RequestLogger {

    private static final Duration[] BUCKETS = {Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5),
        Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100),
        Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2),
        Duration.ofSeconds(5)};

    private final MeterRegistry registry;
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();

    HttpMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void handle(Context ctx, Float executionTimeMs) {
        String method = ctx.method().name();
        String uri = route(ctx);
        String status = Integer.toString(ctx.statusCode());
        timers.computeIfAbsent(method + ' ' + uri + ' ' + status, key -> Timer.builder("http.server.requests")
                .description("HTTP requests served by the node's API")
                .tag("method", method).tag("uri", uri).tag("status", status)
                .serviceLevelObjectives(BUCKETS).register(registry))
                .record(Math.round(executionTimeMs * 1_000_000.0), TimeUnit.NANOSECONDS);
    }

    private static String route(Context ctx) {
        String matched = ctx.matchedPath();
        if (!matched.isEmpty() && !matched.equals("*")) {
            return matched;
        }
        return switch (ctx.statusCode()) {
            case 404 -> "NOT_FOUND";
            case 405 -> "METHOD_NOT_ALLOWED";
            default -> ctx.statusCode() < 400 ? "STATIC" : "UNMATCHED";
        };
    }
}

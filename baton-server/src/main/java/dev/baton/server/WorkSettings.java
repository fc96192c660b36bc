package dev.baton.server;

import dev.baton.work.WorkClusterConfig;
import dev.baton.work.plan.PlannerConfig;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The work cluster a node runs ({@code --workers}, or the seed's {@code DETECTOR_WORKERS} environment variable): the
 * workers' WebSocket URLs and the cluster's timings, which follow {@code --profile}.
 *
 * @param workers the workers' URLs, distinct, in the order given
 * @param origin  where they came from, {@code --workers} or {@code DETECTOR_WORKERS}, for messages
 * @param config  {@link WorkClusterConfig#defaults()} (seed 001's timings) or, with {@code --profile fast},
 *                {@link WorkClusterConfig#fast()}
 * @param items   the desired items' database query ({@code --items-sql}), if any, besides the stored items
 */
record WorkSettings(List<String> workers, String origin, WorkClusterConfig config, Optional<ItemsQuery> items) {

    /** The flag. */
    static final String FLAG = "--workers";
    /** How long a worker that went away keeps its items. */
    static final String RESTART_GRACE_FLAG = "--restart-grace";
    /** What the planner balances: count, weighted or load. */
    static final String BALANCE_FLAG = "--balance";
    /** The seed's environment variable, read when the flag is absent. */
    static final String ENV = "DETECTOR_WORKERS";

    WorkSettings {
        workers = List.copyOf(workers);
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(items, "items");
    }

    /**
     * Reads a comma-separated list of {@code ws://HOST:PORT} or {@code wss://HOST:PORT} URLs (spaces around commas
     * allowed).
     *
     * @throws CliError (usage) naming {@code origin} and the first entry that is empty, not such a URL, or repeated
     */
    static WorkSettings parse(String text, String origin, String profile, Optional<ItemsQuery> items,
            Duration restartGrace, String balance) {
        List<String> urls = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            String url = part.strip();
            if (url.isEmpty()) {
                throw CliError.usage(origin + " must be a comma-separated list of ws://HOST:PORT URLs, with no empty "
                        + "entry, was '" + text + "'");
            }
            check(url, origin);
            if (urls.contains(url)) {
                throw CliError.usage(origin + " lists worker " + url + " twice");
            }
            urls.add(url);
        }
        WorkClusterConfig config = profile.equals("fast") ? WorkClusterConfig.fast() : WorkClusterConfig.defaults();
        if (restartGrace != null) {
            if (restartGrace.isNegative()) {
                throw CliError.usage(RESTART_GRACE_FLAG + " must not be negative, was " + restartGrace);
            }
            config = config.toBuilder().restartGrace(restartGrace).build();
        }
        if (balance != null) {
            config = config.toBuilder().planner(planner(balance)).build();
        }
        return new WorkSettings(urls, origin, config, items);
    }

    /** {@code --balance}: count, weighted or load (defaults for the band and the move cap). */
    private static PlannerConfig planner(String balance) {
        return switch (balance.strip().toLowerCase(Locale.ROOT)) {
            case "count" -> PlannerConfig.defaults();
            case "weighted" -> PlannerConfig.weighted();
            case "load" -> PlannerConfig.load();
            default -> throw CliError.usage(BALANCE_FLAG + " must be count, weighted or load, was '" + balance + "'");
        };
    }

    private static void check(String url, String origin) {
        if (!url.contains("://")) {
            throw notAWorkerUrl(url, origin);
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw CliError.usage(origin + ": '" + url + "' is not a URL (" + e.getReason() + "); expected "
                    + "ws://HOST:PORT", e);
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("ws") || scheme.equals("wss")) || uri.getHost() == null) {
            throw notAWorkerUrl(url, origin);
        }
    }

    private static CliError notAWorkerUrl(String url, String origin) {
        return CliError.usage(origin + ": '" + url + "' is not a worker URL; expected ws://HOST:PORT or "
                + "wss://HOST:PORT, e.g. ws://127.0.0.1:9001");
    }
}

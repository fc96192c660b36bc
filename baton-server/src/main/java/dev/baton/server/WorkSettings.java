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
    /** Load mode's band around the mean load. */
    static final String BAND_FLAG = "--imbalance-band";
    /** Load mode's cap on balancing moves per round. */
    static final String MAX_MOVES_FLAG = "--max-moves-per-round";

    /**
     * How the planner balances, as the flags gave it.
     *
     * @param mode     {@code --balance}: count, weighted or load; null for the default (count)
     * @param band     {@code --imbalance-band}: load mode's band, a fraction of the mean above 0 and below 1; null for
     *                 the default (0.1)
     * @param maxMoves {@code --max-moves-per-round}: load mode's cap, 0 or more; null for the default (64)
     */
    record Balance(String mode, Double band, Integer maxMoves) {

        boolean isDefault() {
            return mode == null && band == null && maxMoves == null;
        }

        /** The first balance flag given, for messages. */
        String firstFlag() {
            return mode != null ? BALANCE_FLAG : band != null ? BAND_FLAG : MAX_MOVES_FLAG;
        }
    }
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
            Duration restartGrace, Balance balance) {
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
        if (!balance.isDefault()) {
            config = config.toBuilder().planner(planner(balance)).build();
        }
        return new WorkSettings(urls, origin, config, items);
    }

    /** {@code --balance}: count, weighted or load; load mode's band and move cap. */
    private static PlannerConfig planner(Balance balance) {
        String mode = balance.mode() == null ? "count" : balance.mode().strip().toLowerCase(Locale.ROOT);
        PlannerConfig config = switch (mode) {
            case "count" -> PlannerConfig.defaults();
            case "weighted" -> PlannerConfig.weighted();
            case "load" -> PlannerConfig.load();
            default -> throw CliError.usage(BALANCE_FLAG + " must be count, weighted or load, was '" + balance.mode()
                    + "'");
        };
        if ((balance.band() != null || balance.maxMoves() != null) && !mode.equals("load")) {
            throw CliError.usage((balance.band() != null ? BAND_FLAG : MAX_MOVES_FLAG) + " needs " + BALANCE_FLAG
                    + " load: only load mode has a band and a cap on moves");
        }
        PlannerConfig.Builder builder = config.toBuilder();
        if (balance.band() != null) {
            if (!(balance.band() > 0 && balance.band() < 1)) {
                throw CliError.usage(BAND_FLAG + " must be a fraction of the mean load above 0 and below 1 (0.1 is "
                        + "10%), was " + balance.band());
            }
            builder.imbalanceBand(balance.band());
        }
        if (balance.maxMoves() != null) {
            if (balance.maxMoves() < 0) {
                throw CliError.usage(MAX_MOVES_FLAG + " must be 0 or more (0: never balance, only place), was "
                        + balance.maxMoves());
            }
            builder.maxMovesPerRound(balance.maxMoves());
        }
        return builder.build();
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

package dev.baton.server;

import dev.baton.work.WorkItem;
import dev.baton.work.source.DesiredStateSource;
import dev.baton.work.source.JdbcDesiredStateSource;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's desired items from a database ({@code --items-sql} on {@code --items-db}): seed 001's
 * {@code regenerateDesiredStateFromDatabase}, a {@link JdbcDesiredStateSource} whose rows are mapped by column name
 * ({@code subscription_identifier}, {@code rtsp_url}, {@code model_id}, {@code model_name}, optional
 * {@code model_url}, ...). The leader runs the query on every regeneration, besides the items of
 * {@code PUT /work/items}. PostgreSQL's driver is the one the node ships, so the database is a
 * {@code jdbc:postgresql://} URL.
 *
 * <p>With {@code --items-notify CHANNEL} the leader also listens on that notification channel, and a notification
 * (sent by a trigger on the tables the query reads) reloads the items at once instead of at the next reconcile
 * interval.
 *
 * @param sql           the query
 * @param jdbcUrl       {@code jdbc:postgresql://HOST[:PORT]/DB[?user=…&password=…]}; never printed with its password
 * @param notifyChannel the channel whose notifications mean the items changed, if any
 */
record ItemsQuery(String sql, String jdbcUrl, Optional<String> notifyChannel) {

    private static final Logger log = LoggerFactory.getLogger(ItemsQuery.class);

    static final String SQL_FLAG = "--items-sql";
    static final String DB_FLAG = "--items-db";
    static final String NOTIFY_FLAG = "--items-notify";
    /** The longest the query may run (the source's default), and the connect bound. */
    static final Duration QUERY_TIMEOUT = Duration.ofSeconds(10);
    private static final int CONNECT_TIMEOUT_SECONDS = 5;

    /**
     * The query, if {@code --items-sql} was given.
     *
     * @throws CliError (usage) if one flag is given without the other, the query is blank, the database is not a
     *                  {@code jdbc:postgresql://} URL, or the channel is not a name PostgreSQL takes unquoted
     */
    static Optional<ItemsQuery> parse(String sql, String db, String notify) {
        if (sql == null && db == null) {
            if (notify != null) {
                throw CliError.usage(NOTIFY_FLAG + " needs " + SQL_FLAG + " and " + DB_FLAG + ": it tells the leader "
                        + "when to run the query again");
            }
            return Optional.empty();
        }
        if (sql == null) {
            throw CliError.usage(DB_FLAG + " needs " + SQL_FLAG + ", the query whose rows are the desired items");
        }
        if (sql.isBlank()) {
            throw CliError.usage(SQL_FLAG + " must not be blank");
        }
        if (db == null) {
            throw CliError.usage(SQL_FLAG + " needs " + DB_FLAG + " jdbc:postgresql://HOST[:PORT]/DB?user=…"
                    + "&password=…, the database to run it on");
        }
        String url = db.strip();
        if (!url.toLowerCase(Locale.ROOT).startsWith("jdbc:postgresql://")) {
            throw CliError.usage(DB_FLAG + " must be a jdbc:postgresql://HOST[:PORT]/DB?user=…&password=… URL, was '"
                    + redact(url) + "'");
        }
        Optional<String> channel = Optional.ofNullable(notify).map(String::strip);
        try {
            // The source's own rule, checked now (on a data source that is never connected) rather than at start.
            channel.ifPresent(c -> JdbcDesiredStateSource.builder(new PGSimpleDataSource(), "SELECT 1")
                    .notifyChannel(c));
        } catch (IllegalArgumentException e) {
            throw CliError.usage(NOTIFY_FLAG + ": " + e.getMessage());
        }
        return Optional.of(new ItemsQuery(sql.strip(), url, channel));
    }

    /** The database URL without its password, fit for the node-started line and messages. */
    String describeDb() {
        return redact(jdbcUrl);
    }

    /**
     * Connects and runs the query once, so that a typo, a missing table or a database that cannot be reached ends the
     * node at start with one line rather than in a warning at every regeneration.
     *
     * @throws CliError (usage) naming what failed
     */
    DesiredStateSource open() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        try {
            dataSource.setURL(jdbcUrl);
        } catch (IllegalArgumentException e) {
            throw CliError.usage(DB_FLAG + ": '" + describeDb() + "' is not a valid JDBC URL: " + e.getMessage(), e);
        }
        dataSource.setConnectTimeout(CONNECT_TIMEOUT_SECONDS);
        dataSource.setSocketTimeout((int) QUERY_TIMEOUT.toSeconds() + CONNECT_TIMEOUT_SECONDS);
        dataSource.setApplicationName("baton-items");
        JdbcDesiredStateSource.Builder builder = JdbcDesiredStateSource.builder(dataSource, sql)
                .queryTimeout(QUERY_TIMEOUT);
        notifyChannel.ifPresent(builder::notifyChannel);
        JdbcDesiredStateSource source = builder.build();
        List<WorkItem> first;
        try {
            first = source.load();
        } catch (Exception e) {
            throw CliError.usage(SQL_FLAG + " failed on " + describeDb() + ": " + BatonCli.oneLine(
                    e.getMessage() == null ? e.toString() : e.getMessage()), e);
        }
        log.info("{} on {}: {} desired items{}", SQL_FLAG, describeDb(), first.size(),
                notifyChannel.map(c -> "; reloaded on notifications on '" + c + "'").orElse(""));
        return source;
    }

    private static String redact(String url) {
        return url.replaceAll("(?i)(password=)[^&;]*", "$1***").replaceAll("(?<=://)[^@/]*@", "***@");
    }

    @Override
    public String toString() {
        return "ItemsQuery[" + describeDb() + "]";
    }
}

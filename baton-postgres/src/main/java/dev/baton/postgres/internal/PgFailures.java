package dev.baton.postgres.internal;

import dev.baton.core.store.StoreException;
import dev.baton.core.store.StoreTimeoutException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Turns pgjdbc's and HikariCP's failures into the store contract's, with messages that say what went wrong in a
 * person's words: {@code cannot reach PostgreSQL at host:port}, {@code authentication failed for user X},
 * {@code database X does not exist}, {@code … timed out after N ms}. Messages name the server by
 * {@code host:port/db} and the user, never the password (pgjdbc's own messages do not contain it either).
 */
public final class PgFailures {

    private final String target;
    private final PgTarget where;
    private final Duration statementTimeout;
    private final Duration connectTimeout;

    /**
     * @param target           the store as shown in messages, e.g. {@code postgresql://baton@127.0.0.1:5432/app?schema=baton}
     * @param where            hosts, database and user for the messages
     * @param statementTimeout the statement timeout, quoted in timeout messages
     * @param connectTimeout   the connection timeout, quoted in timeout messages
     */
    public PgFailures(String target, PgTarget where, Duration statementTimeout, Duration connectTimeout) {
        this.target = target;
        this.where = where;
        this.statementTimeout = statementTimeout;
        this.connectTimeout = connectTimeout;
    }

    /** The store as shown in messages. */
    public String target() {
        return target;
    }

    /** The contract's exception for {@code error}, raised by {@code operation} (e.g. {@code acquire}). */
    public StoreException translate(String operation, Throwable error) {
        Throwable cause = unwrap(error);
        if (cause instanceof StoreException storeException) {
            return storeException;
        }
        String problem = connectionProblem(cause);
        if (problem != null) {
            return new StoreException(operation + " failed: " + problem, cause);
        }
        SQLException sql = find(cause, SQLException.class);
        String state = sql == null ? null : sql.getSQLState();
        if ("57014".equals(state)) {
            return timeout(operation + " on " + target + " timed out after " + statementTimeout.toMillis()
                    + " ms (statement_timeout)", cause);
        }
        if (find(cause, SocketTimeoutException.class) != null) {
            return timeout(operation + " on " + target + ": no answer from PostgreSQL within "
                    + (statementTimeout.toMillis() + networkSlack().toMillis()) + " ms", cause);
        }
        if (cause instanceof SQLTransientConnectionException) {
            // HikariCP gave up waiting for a pooled connection, with no connection failure behind it: all busy.
            return timeout(operation + " on " + target + ": no free connection within " + connectTimeout.toMillis()
                    + " ms", cause);
        }
        if ("42P01".equals(state) || "3F000".equals(state)) {
            return new StoreException(operation + " on " + target + " failed: Baton's tables are missing ("
                    + shortReason(sql) + "); was the schema dropped while the store ran?", cause);
        }
        if (state != null && state.startsWith("08")) {
            return new StoreException(operation + " on " + target + " failed: lost the connection to PostgreSQL at "
                    + where.authority() + " (" + shortReason(cause) + ")", cause);
        }
        return new StoreException(operation + " on " + target + " failed: "
                + (state == null ? "" : "[" + state + "] ") + shortReason(cause), cause);
    }

    /**
     * Why connecting failed, in words naming the server, database or user; {@code null} if {@code error} is not a
     * failure to connect.
     */
    public String connectionProblem(Throwable error) {
        SQLException sql = find(error, SQLException.class);
        String state = deepestState(error);
        if ("28P01".equals(state) || "28000".equals(state)) {
            return "authentication failed for user " + where.user() + " at " + where.authority();
        }
        if ("3D000".equals(state)) {
            return "database " + where.database() + " does not exist at " + where.authority();
        }
        if ("57P03".equals(state)) {
            return "PostgreSQL at " + where.authority() + " is not accepting connections (" + shortReason(sql) + ")";
        }
        if ("57P01".equals(state) || "57P02".equals(state)) {
            // Shutdown, crash restart, or pg_terminate_backend: the server ended this connection.
            return "PostgreSQL at " + where.authority() + " closed the connection (" + shortReason(sql) + ")";
        }
        if (find(error, ConnectException.class) != null || find(error, NoRouteToHostException.class) != null
                || find(error, UnknownHostException.class) != null || "08001".equals(state)
                || "08004".equals(state)) {
            return "cannot reach PostgreSQL at " + where.authority() + ": " + shortReason(error);
        }
        return null;
    }

    /** How long past the statement timeout the store waits for a server that does not answer at all. */
    public static Duration networkSlack() {
        return Duration.ofSeconds(1);
    }

    /** The innermost message of {@code error}, or its type when it has none; first line only. */
    public static String shortReason(Throwable error) {
        if (error == null) {
            return "unknown error";
        }
        Throwable innermost = error;
        while (innermost.getCause() != null && innermost.getCause() != innermost) {
            innermost = innermost.getCause();
        }
        String message = innermost.getMessage();
        if (message == null || message.isBlank()) {
            return innermost.getClass().getSimpleName();
        }
        int newline = message.indexOf('\n');
        return (newline < 0 ? message : message.substring(0, newline)).strip();
    }

    private static StoreTimeoutException timeout(String message, Throwable cause) {
        StoreTimeoutException e = new StoreTimeoutException(message);
        e.initCause(cause);
        return e;
    }

    /** The SQLState of the innermost SQLException in the chain, where server errors end up. */
    private static String deepestState(Throwable error) {
        String state = null;
        for (Throwable e = error; e != null; e = e.getCause() == e ? null : e.getCause()) {
            if (e instanceof SQLException sql && sql.getSQLState() != null) {
                state = sql.getSQLState();
            }
        }
        return state;
    }

    /** The first {@code type} in {@code error}'s chain of causes, or null. */
    static <T extends Throwable> T find(Throwable error, Class<T> type) {
        for (Throwable e = error; e != null; e = e.getCause() == e ? null : e.getCause()) {
            if (type.isInstance(e)) {
                return type.cast(e);
            }
        }
        return null;
    }

    private static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}

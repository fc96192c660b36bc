package dev.baton.bench.backend;

/**
 * One push notice through the backend's own mechanism, outside Baton: a message sent on one connection and received
 * by a listener on another, the way the store receives lease notices ({@code PUBLISH} to a Lettuce pub/sub
 * connection on Redis; {@code pg_notify} to a dedicated pgjdbc connection read in a {@code getNotifications(timeout)}
 * loop on PostgreSQL, as {@code PgListener} does).
 */
public interface PushProbe extends AutoCloseable {

    /** A label for the calibration table. */
    String name();

    /** Sends one notice and waits for the listener to receive it; returns the nanoseconds from send to receipt. */
    long sendAndAwait() throws Exception;

    @Override
    void close();
}

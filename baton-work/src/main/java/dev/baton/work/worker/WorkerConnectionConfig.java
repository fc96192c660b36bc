package dev.baton.work.worker;

import java.time.Duration;
import java.util.Objects;

/**
 * Timings and limits of the leader's connection to one worker; immutable, from {@link #builder()}. Defaults are the seed's
 * ({@code RECONNECT_DELAY}, {@code WORKER_TIMEOUT_MS}).
 *
 * @param reconnectDelay       wait before reconnecting after a failed attempt, a lost connection or a report timeout;
 *                             default 10 s (seed {@code RECONNECT_DELAY})
 * @param reconnectJitter      a random extra wait in [0, jitter) added to each reconnect delay so that many
 *                             connections do not retry in step; default 2 s
 * @param reportTimeout        a worker with an open connection but no state report for this long is offline and its
 *                             connection is dropped; default 10 s (seed {@code WORKER_TIMEOUT_MS})
 * @param connectTimeout       longest a WebSocket handshake may take; default 5 s
 * @param maxMessageBytes      larger worker messages are counted and dropped; default 1 MiB
 * @param badMessageLogInterval at most one WARN line per interval per connection about bad messages (the rest are
 *                             counted and summarised in the next line); default 10 s
 * @param maxQueuedMessages    messages read from the worker's socket and not yet handled, at most; the connection
 *                             asks the socket for the next one only when one is handled, so a worker that sends
 *                             faster than the backend handles its messages is held back by TCP; default 16
 * @param messagesPerSecond    the worker's message budget: this many messages a second (of any kind, bad ones
 *                             too) with up to {@code messageBurst} at once; a worker that sends more is disconnected
 *                             as flooding (a {@code worker:websocket_error} starting {@code flooding:}, then
 *                             {@code worker:offline}) and reconnected after {@code reconnectDelay}; default 1,000
 * @param messageBurst         see {@code messagesPerSecond}; default 5,000
 * @param badMessagesPerSecond the worker's budget of bad messages (malformed, unknown type, oversized, ...): this
 *                             many a second, up to {@code badMessageBurst} at once; beyond it the worker is
 *                             disconnected as flooding like above; default 1
 * @param badMessageBurst      see {@code badMessagesPerSecond}; default 100
 */
public record WorkerConnectionConfig(Duration reconnectDelay, Duration reconnectJitter, Duration reportTimeout,
                                     Duration connectTimeout, int maxMessageBytes, Duration badMessageLogInterval,
                                     int maxQueuedMessages, double messagesPerSecond, int messageBurst,
                                     double badMessagesPerSecond, int badMessageBurst) {

    public WorkerConnectionConfig {
        positive("reconnectDelay", reconnectDelay);
        Objects.requireNonNull(reconnectJitter, "reconnectJitter");
        if (reconnectJitter.isNegative()) {
            throw new IllegalArgumentException("reconnectJitter must not be negative, was " + reconnectJitter);
        }
        positive("reportTimeout", reportTimeout);
        positive("connectTimeout", connectTimeout);
        Objects.requireNonNull(badMessageLogInterval, "badMessageLogInterval");
        if (maxMessageBytes < 64) {
            throw new IllegalArgumentException("maxMessageBytes must be at least 64, was " + maxMessageBytes);
        }
        atLeastOne("maxQueuedMessages", maxQueuedMessages);
        atLeastOne("messageBurst", messageBurst);
        atLeastOne("badMessageBurst", badMessageBurst);
        rate("messagesPerSecond", messagesPerSecond);
        rate("badMessagesPerSecond", badMessagesPerSecond);
    }

    private static void atLeastOne(String field, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(field + " must be at least 1, was " + value);
        }
    }

    private static void rate(String field, double value) {
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(field + " must be positive and finite, was " + value);
        }
    }

    private static void positive(String field, Duration value) {
        Objects.requireNonNull(value, field);
        if (value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(field + " must be positive, was " + value);
        }
    }

    /** The default cap on one worker message: 1 MiB. */
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 1 << 20;

    /** The seed's timings: reconnect every 10 s (+ up to 2 s jitter), offline after 10 s without a report. */
    public static WorkerConnectionConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these settings. */
    public Builder toBuilder() {
        return new Builder().reconnectDelay(reconnectDelay).reconnectJitter(reconnectJitter)
                .reportTimeout(reportTimeout).connectTimeout(connectTimeout).maxMessageBytes(maxMessageBytes)
                .badMessageLogInterval(badMessageLogInterval).maxQueuedMessages(maxQueuedMessages)
                .messagesPerSecond(messagesPerSecond).messageBurst(messageBurst)
                .badMessagesPerSecond(badMessagesPerSecond).badMessageBurst(badMessageBurst);
    }

    /** Builds a {@link WorkerConnectionConfig}; {@link #build()} validates and names the first bad field. */
    public static final class Builder {
        private Duration reconnectDelay = Duration.ofSeconds(10);
        private Duration reconnectJitter = Duration.ofSeconds(2);
        private Duration reportTimeout = Duration.ofSeconds(10);
        private Duration connectTimeout = Duration.ofSeconds(5);
        private int maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES;
        private Duration badMessageLogInterval = Duration.ofSeconds(10);
        private int maxQueuedMessages = 16;
        private double messagesPerSecond = 1_000;
        private int messageBurst = 5_000;
        private double badMessagesPerSecond = 1;
        private int badMessageBurst = 100;

        private Builder() { }

        public Builder maxQueuedMessages(int value) {
            this.maxQueuedMessages = value;
            return this;
        }

        public Builder messagesPerSecond(double value) {
            this.messagesPerSecond = value;
            return this;
        }

        public Builder messageBurst(int value) {
            this.messageBurst = value;
            return this;
        }

        public Builder badMessagesPerSecond(double value) {
            this.badMessagesPerSecond = value;
            return this;
        }

        public Builder badMessageBurst(int value) {
            this.badMessageBurst = value;
            return this;
        }

        public Builder reconnectDelay(Duration value) {
            this.reconnectDelay = value;
            return this;
        }

        public Builder reconnectJitter(Duration value) {
            this.reconnectJitter = value;
            return this;
        }

        public Builder reportTimeout(Duration value) {
            this.reportTimeout = value;
            return this;
        }

        public Builder connectTimeout(Duration value) {
            this.connectTimeout = value;
            return this;
        }

        public Builder maxMessageBytes(int value) {
            this.maxMessageBytes = value;
            return this;
        }

        public Builder badMessageLogInterval(Duration value) {
            this.badMessageLogInterval = value;
            return this;
        }

        public WorkerConnectionConfig build() {
            return new WorkerConnectionConfig(reconnectDelay, reconnectJitter, reportTimeout, connectTimeout,
                    maxMessageBytes, badMessageLogInterval, maxQueuedMessages, messagesPerSecond, messageBurst,
                    badMessagesPerSecond, badMessageBurst);
        }
    }
}

package dev.baton.work.worker;

import java.time.Duration;
import java.util.Objects;

/**
 * Timings and limits of a {@link WorkerConnection}; immutable, from {@link #builder()}. Defaults are the seed's
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
 */
public record WorkerConnectionConfig(Duration reconnectDelay, Duration reconnectJitter, Duration reportTimeout,
                                     Duration connectTimeout, int maxMessageBytes, Duration badMessageLogInterval) {

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
    }

    private static void positive(String field, Duration value) {
        Objects.requireNonNull(value, field);
        if (value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(field + " must be positive, was " + value);
        }
    }

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
                .badMessageLogInterval(badMessageLogInterval);
    }

    /** Builds a {@link WorkerConnectionConfig}; {@link #build()} validates and names the first bad field. */
    public static final class Builder {
        private Duration reconnectDelay = Duration.ofSeconds(10);
        private Duration reconnectJitter = Duration.ofSeconds(2);
        private Duration reportTimeout = Duration.ofSeconds(10);
        private Duration connectTimeout = Duration.ofSeconds(5);
        private int maxMessageBytes = WorkerProtocolCodec.DEFAULT_MAX_MESSAGE_BYTES;
        private Duration badMessageLogInterval = Duration.ofSeconds(10);

        private Builder() { }

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
                    maxMessageBytes, badMessageLogInterval);
        }
    }
}

package dev.baton.server;

import dev.baton.core.memory.InMemoryStore;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.StoreException;
import dev.baton.postgres.PostgresStore;
import dev.baton.redis.RedisStore;
import java.util.Locale;

/**
 * Turns a {@code --backend} value into a connected {@link CoordinationStore}. The one place that knows which backends
 * the CLI offers, so adding a backend touches this file and the docs only.
 */
final class Backends {

    /** The accepted forms, for help texts and error messages. */
    static final String FORMS = "memory, redis://HOST:PORT[/DB] or postgresql://USER[:PASSWORD]@HOST[:PORT]/DB[?schema=NAME]";

    private Backends() {
    }

    /**
     * Opens the store named by {@code spec}.
     *
     * @throws CliError (usage) if the form is unknown or the backend cannot be reached
     */
    static CoordinationStore open(String spec) {
        String value = spec == null ? "" : spec.strip();
        String lower = value.toLowerCase(Locale.ROOT);
        if (lower.equals("memory")) {
            return new InMemoryStore();
        }
        if (lower.startsWith("redis://") || lower.startsWith("rediss://")) {
            try {
                return RedisStore.connect(value);
            } catch (StoreException | IllegalArgumentException e) {
                throw CliError.usage("--backend: " + e.getMessage(), e);
            }
        }
        if (lower.startsWith("postgresql://") || lower.startsWith("postgres://")) {
            try {
                return PostgresStore.connect(value);
            } catch (StoreException | IllegalArgumentException e) {
                throw CliError.usage("--backend: " + e.getMessage(), e);
            }
        }
        throw CliError.usage("unsupported backend '" + redact(value) + "' (expected " + FORMS + ")");
    }

    /** The backend address without a password, fit for an error message. */
    static String redact(String uri) {
        return uri.replaceAll("(?<=://)[^@/]*@", "***@");
    }
}

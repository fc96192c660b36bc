package dev.baton.server;

import dev.baton.core.Baton;
import dev.baton.core.store.LeaderRecordStore;
import dev.baton.core.store.StoreException;
import dev.baton.peer.bully.FileLeaderStore;
import dev.baton.peer.bully.StandaloneLeaderStore;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Turns a {@code --leader-store} value into the {@link LeaderRecordStore} a {@code bully} node keeps its group's
 * leader record in: {@code standalone} (this process only), {@code file:PATH} (a file shared by the processes of one
 * machine), {@code redis://…}, {@code redis-cluster://…}, {@code postgresql://…} or {@code etcd://…} (the stores of
 * the other backends, on their own connections).
 */
final class LeaderStores {

    /** The accepted forms, for help texts and error messages. */
    static final String FORMS = "standalone, file:PATH, redis://HOST:PORT[/DB], "
            + "redis-sentinel://HOST:PORT[,HOST:PORT...][/DB]#MASTER, redis-cluster://HOST:PORT[,HOST:PORT...], "
            + "postgresql://USER[:PASSWORD]@HOST[:PORT][,HOST[:PORT]...]/DB[?schema=NAME] or "
            + "etcd://HOST:PORT[,HOST:PORT...][/PREFIX]";

    private static final Duration FIRST_READ = Duration.ofSeconds(10);

    private LeaderStores() {
    }

    /** Whether {@code spec} has one of the accepted forms (checked before anything is opened). */
    static void check(String spec) {
        String lower = spec.strip().toLowerCase(Locale.ROOT);
        if (lower.equals("standalone")) {
            return;
        }
        if (lower.startsWith("file:")) {
            file(spec.strip().substring("file:".length()));
            return;
        }
        if (lower.startsWith("redis://") || lower.startsWith("rediss://") || lower.startsWith("redis-sentinel://")
                || lower.startsWith("redis-cluster://") || lower.startsWith("postgresql://")
                || lower.startsWith("postgres://") || lower.startsWith("etcd://")) {
            return;
        }
        throw unsupported(spec);
    }

    private static CliError unsupported(String spec) {
        return CliError.usage("--leader-store: unsupported leader store '" + Backends.redact(spec.strip())
                + "' (expected " + FORMS + ")");
    }

    /**
     * Opens the store and reads the group's record once, so that an unreachable server or a damaged file is a usage
     * error now rather than an endless retry later.
     *
     * @throws CliError (usage) naming {@code --leader-store}
     */
    static LeaderRecordStore open(String spec, String group) {
        String value = spec.strip();
        String lower = value.toLowerCase(Locale.ROOT);
        LeaderRecordStore store;
        try {
            if (lower.equals("standalone")) {
                store = new StandaloneLeaderStore();
            } else if (lower.startsWith("file:")) {
                store = new FileLeaderStore(file(value.substring("file:".length())));
            } else if (!lower.equals("memory") && Baton.connects(value)) {
                store = Baton.connect(value).leaderRecords();
            } else {
                throw unsupported(value);
            }
        } catch (StoreException | IllegalArgumentException e) {
            throw CliError.usage("--leader-store: " + BatonCli.oneLine(e.getMessage()), e);
        }
        try {
            store.readLeader(group).get(FIRST_READ.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            store.close();
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw CliError.usage("--leader-store: " + BatonCli.oneLine(String.valueOf(cause.getMessage())), cause);
        } catch (TimeoutException e) {
            store.close();
            throw CliError.usage("--leader-store: " + store.describe() + " did not answer a read within "
                    + FIRST_READ.toSeconds() + " s", e);
        } catch (InterruptedException e) {
            store.close();
            Thread.currentThread().interrupt();
            throw CliError.usage("--leader-store: interrupted while reading " + store.describe(), e);
        }
        return store;
    }

    /** The file of {@code file:PATH}: not a directory, and its directory usable. */
    private static Path file(String text) {
        if (text.isBlank()) {
            throw CliError.usage("--leader-store file: needs a path, e.g. file:/var/lib/baton/leader.json");
        }
        Path path;
        try {
            path = Path.of(text).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw CliError.usage("--leader-store: '" + text + "' is not a valid path: " + e.getReason(), e);
        }
        if (Files.isDirectory(path)) {
            throw CliError.usage("--leader-store: " + path + " is a directory; name the file the leader record is kept"
                    + " in, e.g. file:" + path.resolve("leader.json"));
        }
        if (path.getParent() != null && Files.exists(path.getParent()) && !Files.isDirectory(path.getParent())) {
            throw CliError.usage("--leader-store: " + path.getParent() + " is not a directory");
        }
        return path;
    }
}

package dev.baton.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL cluster on disk, in a directory of its own: {@code data/} (made by {@code initdb}),
 * {@code socket/} (the Unix socket) and {@code postgres.log} (the output of every program run on it, the server's
 * log included). Knows how to create it and how to read the postmaster's status; {@link PostgresServer} runs it.
 */
final class PostgresCluster {

    private static final long READY_POLL_MILLIS = 20;

    private static final String DATA_DIR = "data";
    private static final String SOCKET_DIR = "socket";
    private static final String PASSWORD_FILE = "password";
    private static final String LOG_FILE = "postgres.log";
    private static final Duration SETUP_TIMEOUT = Duration.ofSeconds(60);
    private static final int LOG_TAIL_LINES = 30;
    /** A Unix socket path must fit {@code sun_path}: 108 bytes with the terminating NUL. */
    private static final int MAX_SOCKET_PATH = 107;
    private static final String SOCKET_FILE_NAME = "/.s.PGSQL.65535";

    private final PostgresBinaries binaries;
    private final PostgresAccount account;
    private final Path dir;

    PostgresCluster(PostgresBinaries binaries, PostgresAccount account, Path dir) {
        this.binaries = binaries;
        this.account = account;
        this.dir = dir;
    }

    Path directory() {
        return dir;
    }

    /**
     * Runs {@code initdb} (superuser {@code user} with {@code password}, SCRAM-SHA-256 for every connection, UTF-8,
     * C locale), configures the server to listen on {@code host} only, and creates {@code database}.
     */
    void create(String host, String user, String password, String database) {
        try {
            account.requireReachable(dir, "server directory");
            account.requireReachable(binaries.postgres(), "PostgreSQL binary");
            Files.createDirectory(dir.resolve(SOCKET_DIR));
            Path passwordFile = dir.resolve(PASSWORD_FILE);
            Files.writeString(passwordFile, password + "\n", StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(passwordFile, PosixFilePermissions.fromString("rw-------"));
            account.handOver(dir);
            run("initdb", null, binaries.initdb().toString(),
                    "--pgdata=" + dataDir(),
                    "--username=" + user,
                    "--pwfile=" + passwordFile,
                    "--auth=scram-sha-256",
                    "--encoding=UTF8",
                    "--locale=C",
                    "--no-sync");
            Files.delete(passwordFile);
            Files.writeString(dataDir().resolve("postgresql.conf"), settings(host), StandardCharsets.UTF_8,
                    StandardOpenOption.APPEND);
            // Single-user mode needs no client program (the embedded bundle has no psql) and no running server.
            run("CREATE DATABASE in single-user mode", "CREATE DATABASE " + database + ";\n",
                    binaries.postgres().toString(), "--single", "-D", dataDir().toString(),
                    "-c", "exit_on_error=true", "template1");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare PostgreSQL in " + dir, e);
        }
    }

    /** The postmaster's command for {@code port}, run as the cluster's account, output to the log. */
    ProcessBuilder postmaster(int port) {
        return prepare(new ProcessBuilder(account.command(List.of(binaries.postgres().toString(),
                "-D", dataDir().toString(), "-p", Integer.toString(port)))));
    }

    /**
     * The pid in {@code postmaster.pid} if that postmaster is ready to accept connections on {@code port}, as
     * {@code pg_ctl start -w} decides; empty while it starts (or if the file is a stale one left by a crash).
     * Lines: 1 pid, 2 data dir, 3 start time, 4 port, 5 socket dir, 6 address, 7 shared memory key, 8 status.
     */
    OptionalLong readyPostmaster(int port) {
        List<String> lines;
        try {
            lines = Files.readAllLines(dataDir().resolve("postmaster.pid"), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return OptionalLong.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read postmaster.pid in " + dataDir(), e);
        }
        if (lines.size() < 8 || !lines.get(7).trim().equals("ready")) {
            return OptionalLong.empty();
        }
        try {
            return Integer.parseInt(lines.get(3).trim()) == port
                    ? OptionalLong.of(Long.parseLong(lines.get(0).trim()))
                    : OptionalLong.empty();
        } catch (NumberFormatException e) {
            return OptionalLong.empty(); // being rewritten
        }
    }

    /**
     * Waits until {@code candidate}, the postmaster just launched on this data directory (or runuser around it),
     * reports "ready" in {@code postmaster.pid} (as {@code pg_ctl start -w} does) and returns the postmaster's pid. A
     * stale file left by a killed server names a dead pid and is ignored. On a timeout the process tree is killed.
     *
     * @param name how messages call the server, e.g. "postgres" or "the standby"
     */
    long awaitReady(Process candidate, int port, String name, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!candidate.isAlive()) {
                throw new IllegalStateException(name + " exited with code " + candidate.exitValue() + " on port "
                        + port + "; log tail:\n" + logTail());
            }
            OptionalLong ready = readyPostmaster(port);
            if (ready.isPresent() && (ready.getAsLong() == candidate.pid()
                    || candidate.children().anyMatch(child -> child.pid() == ready.getAsLong()))) {
                return ready.getAsLong();
            }
            ServerProcesses.waitQuietly(candidate, READY_POLL_MILLIS, name);
        }
        PostgresProcesses.signal("KILL", PostgresProcesses.tree(candidate.pid()));
        ServerProcesses.awaitExit(candidate, timeout);
        throw new IllegalStateException(name + " did not accept connections on port " + port + " within "
                + timeout.toSeconds() + " s; log tail:\n" + logTail());
    }

    /** The last lines of the log, for error messages. */
    String logTail() {
        try {
            List<String> lines = Files.readAllLines(dir.resolve(LOG_FILE), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Deletes the directory with everything in it; the server must not run. */
    void delete() {
        ServerProcesses.deleteRecursively(dir);
    }

    private Path dataDir() {
        return dir.resolve(DATA_DIR);
    }

    private String settings(String host) {
        String socketDir = dir.resolve(SOCKET_DIR).toAbsolutePath().toString();
        // A socket path too long for sun_path would stop the server from starting; TCP is what clients use anyway.
        boolean socketFits = (socketDir + SOCKET_FILE_NAME).getBytes(StandardCharsets.UTF_8).length <= MAX_SOCKET_PATH;
        List<String> lines = List.of(
                "",
                "# Added by Baton's PostgresServer (baton-testkit): a private, disposable test server.",
                "listen_addresses = " + quote(host),
                "unix_socket_directories = " + quote(socketFits ? socketDir : ""),
                "max_connections = 200",
                "shared_buffers = '32MB'",
                // Safe for a test server: a killed postgres loses nothing the kernel already has, only a machine
                // crash would. Commits stay synchronous so that a kill keeps every committed transaction.
                "fsync = off");
        return String.join("\n", lines) + "\n";
    }

    /** Runs a setup program as the cluster's account; a failure shows the log's tail. */
    private void run(String what, String input, String... command) {
        List<String> full = account.command(List.of(command));
        try {
            Process setup = prepare(new ProcessBuilder(full)).start();
            try (OutputStream stdin = setup.getOutputStream()) {
                if (input != null) {
                    stdin.write(input.getBytes(StandardCharsets.UTF_8));
                }
            }
            if (!setup.waitFor(SETUP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                setup.destroyForcibly();
                throw new IllegalStateException(what + " did not finish within " + SETUP_TIMEOUT.toSeconds()
                        + " s; log tail:\n" + logTail());
            }
            if (setup.exitValue() != 0) {
                throw new IllegalStateException(what + " failed with exit code " + setup.exitValue()
                        + " (" + String.join(" ", full) + "); log tail:\n" + logTail());
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + String.join(" ", full) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + what, e);
        }
    }

    /**
     * Output to the log; no inherited PG* variables (PGPORT, PGDATA, ...) that would change what the programs do;
     * the C locale, so that messages are English and "Address already in use" can be recognised.
     */
    private ProcessBuilder prepare(ProcessBuilder builder) {
        Map<String, String> environment = builder.environment();
        environment.keySet().removeIf(name -> name.startsWith("PG"));
        environment.put("LC_ALL", "C");
        return builder.directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(LOG_FILE).toFile()));
    }

    /** A string literal in postgresql.conf: single quotes, doubled inside. */
    private static String quote(String value) {
        return "'" + value.replace("'", "''") + "'";
    }
}

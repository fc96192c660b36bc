package dev.baton.testkit;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The operating-system account that {@code initdb} and {@code postgres} run as. PostgreSQL refuses to run as root, so
 * a JVM running as root (as in containers and CI) runs them as {@code nobody} through {@code setpriv} (util-linux,
 * which execs in place, so the launched process id is the postmaster's) or, failing that, {@code runuser}, and hands
 * the server's directory to that account. Nothing on the system is changed: no user is created, no file outside the
 * server's own directory is touched. A JVM not running as root runs them directly.
 */
final class PostgresAccount {

    /** {@code nobody} on Debian, Ubuntu, Alpine and Red Hat; used if {@code id nobody} cannot tell. */
    private static final int NOBODY_ID = 65534;
    private static final long COMMAND_TIMEOUT_SECONDS = 10;

    private static volatile PostgresAccount current;

    private final List<String> prefix;
    private final int uid;
    private final int gid;
    private final String description;

    private PostgresAccount(List<String> prefix, int uid, int gid, String description) {
        this.prefix = List.copyOf(prefix);
        this.uid = uid;
        this.gid = gid;
        this.description = description;
    }

    /** The account for this JVM: itself, or {@code nobody} when the JVM runs as root. Decided once. */
    static PostgresAccount current() {
        PostgresAccount account = current;
        if (account == null) {
            synchronized (PostgresAccount.class) {
                account = current;
                if (account == null) {
                    account = decide();
                    current = account;
                }
            }
        }
        return account;
    }

    /** True when commands are run as another user than the JVM's. */
    boolean switchesUser() {
        return !prefix.isEmpty();
    }

    /** {@code command} wrapped so that it runs as this account. */
    List<String> command(List<String> command) {
        List<String> full = new ArrayList<>(prefix);
        full.addAll(command);
        return full;
    }

    /** Makes {@code path} and everything below it belong to this account; a no-op when not switching user. */
    void handOver(Path path) {
        if (!switchesUser()) {
            return;
        }
        try (Stream<Path> paths = Files.walk(path)) {
            for (Path p : paths.toList()) {
                Files.setAttribute(p, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
                Files.setAttribute(p, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot hand " + path + " over to uid " + uid, e);
        }
    }

    /**
     * Fails with an explanation if this account cannot reach {@code path}: every directory above it must be
     * searchable by others when PostgreSQL runs as {@code nobody} (a {@code java.io.tmpdir} under {@code /root}
     * would not be).
     */
    void requireReachable(Path path, String what) {
        if (!switchesUser()) {
            return;
        }
        for (Path dir = path.toAbsolutePath().getParent(); dir != null; dir = dir.getParent()) {
            try {
                Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(dir);
                if (!permissions.contains(PosixFilePermission.OTHERS_EXECUTE)) {
                    throw new IllegalStateException("PostgreSQL refuses to run as root, so it runs as uid " + uid
                            + ", which cannot reach the " + what + " " + path + " because " + dir
                            + " is not searchable by others; point java.io.tmpdir to a directory such as /tmp");
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the permissions of " + dir, e);
            }
        }
    }

    /** E.g. "as uid 65534 (setpriv; the JVM runs as root)" or "as the JVM's user". */
    String describe() {
        return description;
    }

    private static PostgresAccount decide() {
        boolean root = run("id", "-u").map("0"::equals)
                .orElseGet(() -> "root".equals(System.getProperty("user.name")));
        if (!root) {
            return new PostgresAccount(List.of(), -1, -1, "as the JVM's user");
        }
        Optional<Integer> nobodyUid = run("id", "-u", "nobody").map(Integer::parseInt);
        int uid = nobodyUid.orElse(NOBODY_ID);
        int gid = run("id", "-g", "nobody").map(Integer::parseInt).orElse(NOBODY_ID);
        Optional<Path> setpriv = onPath("setpriv");
        if (setpriv.isPresent()) {
            return new PostgresAccount(
                    List.of(setpriv.get().toString(), "--reuid=" + uid, "--regid=" + gid, "--clear-groups", "--"),
                    uid, gid, "as uid " + uid + " (setpriv; the JVM runs as root)");
        }
        Optional<Path> runuser = onPath("runuser");
        if (runuser.isPresent() && nobodyUid.isPresent()) {
            return new PostgresAccount(List.of(runuser.get().toString(), "-u", "nobody", "--"),
                    uid, gid, "as nobody, uid " + uid + " (runuser; the JVM runs as root)");
        }
        throw new IllegalStateException("PostgreSQL refuses to run as root and neither setpriv nor runuser (with a "
                + "'nobody' user) is available to drop privileges; install util-linux or run the JVM as another user");
    }

    private static Optional<Path> onPath(String executable) {
        String pathVariable = System.getenv("PATH");
        List<String> dirs = new ArrayList<>();
        if (pathVariable != null) {
            dirs.addAll(List.of(pathVariable.split(File.pathSeparator)));
        }
        dirs.addAll(List.of("/usr/bin", "/usr/sbin", "/bin", "/sbin"));
        for (String dir : dirs) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, executable);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** The trimmed output of a short command that succeeded, else empty. */
    private static Optional<String> run(String... command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getOutputStream().close();
            if (!process.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return Optional.empty();
            }
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return process.exitValue() == 0 && !output.isEmpty() ? Optional.of(output) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + String.join(" ", command), e);
        }
    }
}

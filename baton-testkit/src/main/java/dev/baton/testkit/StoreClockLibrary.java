package dev.baton.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The library a {@link StoreClock} preloads into a server: {@code store-clock.c}, a resource of this package,
 * compiled with the machine's C compiler ({@code cc}, {@code gcc} or {@code clang} on {@code PATH}) into a temporary
 * directory once per JVM. A prebuilt library would tie the testkit jar to one architecture and C library; the source
 * is 120 lines and compiles in well under a second.
 */
final class StoreClockLibrary {

    private static final String SOURCE = "store-clock.c";
    private static final List<String> COMPILERS = List.of("cc", "gcc", "clang");
    private static final long COMPILE_TIMEOUT_SECONDS = 60;
    private static final int ELF_HEADER = 64;
    private static final int PT_INTERP = 3;

    private static Path built;
    private static String failure;

    private StoreClockLibrary() {}

    /**
     * The compiled library, built on first use.
     *
     * @throws StoreClock.UnavailableException if it cannot be built here (the message says why)
     */
    static synchronized Path path() {
        if (built == null && failure == null) {
            try {
                built = build();
            } catch (StoreClock.UnavailableException e) {
                failure = e.getMessage();
            }
        }
        if (built == null) {
            throw new StoreClock.UnavailableException(failure);
        }
        return built;
    }

    /** Why a store clock cannot run {@code executable} here, or empty if it can: builds the library if needed. */
    static Optional<String> whyUnavailable(Path executable) {
        try {
            path();
        } catch (StoreClock.UnavailableException e) {
            return Optional.of(e.getMessage());
        }
        return dynamicallyLinked(executable) ? Optional.empty()
                : Optional.of(executable + " is not a dynamically linked ELF executable, so LD_PRELOAD has no effect "
                        + "on it and its clock cannot be moved; put a dynamically linked one on PATH (Debian's)");
    }

    /**
     * Fails if {@code executable} would ignore the library.
     *
     * @throws StoreClock.UnavailableException if it would
     */
    static void requireUsableWith(Path executable) {
        whyUnavailable(executable).ifPresent(why -> {
            throw new StoreClock.UnavailableException(why);
        });
    }

    private static Path build() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (!os.contains("linux")) {
            throw new StoreClock.UnavailableException("a store clock needs Linux (LD_PRELOAD of an ELF library); this "
                    + "is " + os);
        }
        String compiler = COMPILERS.stream().filter(StoreClockLibrary::onPath).findFirst()
                .orElseThrow(() -> new StoreClock.UnavailableException("a store clock compiles a small C library and "
                        + "there is no C compiler (cc, gcc or clang) on PATH: install the Debian packages gcc and "
                        + "libc6-dev"));
        try {
            Path dir = Files.createTempDirectory("baton-store-clock-library-");
            // PostgreSQL may run as another user (nobody, when the JVM runs as root): it must read the library.
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            Path source = dir.resolve(SOURCE);
            try (InputStream in = StoreClockLibrary.class.getResourceAsStream(SOURCE)) {
                if (in == null) {
                    throw new IllegalStateException("resource " + SOURCE + " is missing from the testkit jar");
                }
                Files.copy(in, source);
            }
            Path library = dir.resolve("store-clock.so");
            Path log = dir.resolve("compile.log");
            Process compile = new ProcessBuilder(compiler, "-shared", "-fPIC", "-O2", "-o", library.toString(),
                    source.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            compile.getOutputStream().close();
            if (!compile.waitFor(COMPILE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                compile.destroyForcibly();
                throw new StoreClock.UnavailableException(compiler + " did not compile " + SOURCE + " within "
                        + COMPILE_TIMEOUT_SECONDS + " s");
            }
            if (compile.exitValue() != 0 || !Files.isRegularFile(library)) {
                throw new StoreClock.UnavailableException(compiler + " could not compile " + SOURCE
                        + " (are the C library headers installed? Debian: libc6-dev):\n"
                        + Files.readString(log, StandardCharsets.UTF_8));
            }
            Files.setPosixFilePermissions(library, PosixFilePermissions.fromString("rwxr-xr-x"));
            dir.toFile().deleteOnExit();
            for (Path file : List.of(source, log, library)) {
                file.toFile().deleteOnExit();
            }
            return library;
        } catch (IOException e) {
            throw new StoreClock.UnavailableException("cannot compile " + SOURCE + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreClock.UnavailableException("interrupted compiling " + SOURCE, e);
        }
    }

    /** Whether {@code executable} is a 64-bit ELF with a program interpreter, i.e. loaded by ld.so. */
    static boolean dynamicallyLinked(Path executable) {
        try (FileChannel channel = FileChannel.open(executable, StandardOpenOption.READ)) {
            ByteBuffer header = read(channel, 0, ELF_HEADER);
            if (header == null || header.getInt(0) != 0x464c457f || header.get(4) != 2) {
                return false; // not "\x7fELF", or not ELFCLASS64
            }
            header.order(header.get(5) == 2 ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
            long programHeaders = header.getLong(0x20);
            int entrySize = Short.toUnsignedInt(header.getShort(0x36));
            int entries = Short.toUnsignedInt(header.getShort(0x38));
            for (int i = 0; i < entries; i++) {
                ByteBuffer entry = read(channel, programHeaders + (long) i * entrySize, 4);
                if (entry == null) {
                    return false;
                }
                if (entry.order(header.order()).getInt(0) == PT_INTERP) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    private static ByteBuffer read(FileChannel channel, long position, int length) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, position + buffer.position()) < 0) {
                return null;
            }
        }
        return buffer.flip();
    }

    private static boolean onPath(String executable) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, executable))) {
                return true;
            }
        }
        return false;
    }
}

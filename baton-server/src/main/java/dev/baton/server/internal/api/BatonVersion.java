package dev.baton.server.internal.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** Baton's version, as Maven wrote it into {@code baton-version.properties} at build time. */
final class BatonVersion {

    private static final String RESOURCE = "/dev/baton/server/baton-version.properties";

    private BatonVersion() {
    }

    static String current() {
        try (InputStream in = BatonVersion.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the class path");
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package dev.baton.bench.support;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The versions of the peer libraries on the class path, read from the {@code pom.properties} Maven packs into each
 * jar (the bench jar keeps them when it shades), so every table names the release it really measured.
 */
public final class PeerVersions {

    private PeerVersions() {
    }

    /** Redisson's version, e.g. {@code 4.7.0}. */
    public static String redisson() {
        return of("org.redisson", "redisson");
    }

    /** Curator's version (its recipes jar), e.g. {@code 5.9.0}. */
    public static String curator() {
        return of("org.apache.curator", "curator-recipes");
    }

    /** The version of {@code groupId:artifactId} on the class path, or {@code unknown version} if it is not named. */
    public static String of(String groupId, String artifactId) {
        String resource = "/META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
        try (InputStream in = PeerVersions.class.getResourceAsStream(resource)) {
            if (in != null) {
                Properties properties = new Properties();
                properties.load(in);
                String version = properties.getProperty("version");
                if (version != null && !version.isBlank()) {
                    return version.trim();
                }
            }
        } catch (IOException e) {
            // fall through to the unknown version: a table without a version is still a table
        }
        return "unknown version";
    }
}

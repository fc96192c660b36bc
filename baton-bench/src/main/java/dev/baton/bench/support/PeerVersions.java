package dev.baton.bench.support;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The versions of the peer libraries on the class path, read from the {@code pom.properties} Maven packs into each
 * jar (the bench jar keeps them when it shades), so every table names the release it really measured, not the one
 * someone remembered.
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
        String version = version(groupId, artifactId);
        return version == null ? "unknown version" : version;
    }

    /** {@code name version}, e.g. {@code Redisson 4.7.0}; just {@code name} if the version cannot be read. */
    public static String named(String name, String groupId, String artifactId) {
        String version = version(groupId, artifactId);
        return version == null ? name : name + " " + version;
    }

    /** The artifact's version, or null if the class path does not name it. */
    public static String version(String groupId, String artifactId) {
        return property("/META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties", "version");
    }

    /** Kafka's client version, from the file its client reads it from, or null. */
    public static String kafka() {
        return property("/kafka/kafka-version.properties", "version");
    }

    private static String property(String resource, String key) {
        try (InputStream in = PeerVersions.class.getResourceAsStream(resource)) {
            if (in == null) {
                return null;
            }
            Properties properties = new Properties();
            properties.load(in);
            String value = properties.getProperty(key);
            return value == null || value.isBlank() ? null : value.trim();
        } catch (IOException e) {
            return null; // a table without a version is still a table
        }
    }
}

package dev.baton.bench.report;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The versions of the peers on this bench's class path, read from the {@code pom.properties} each Maven artifact
 * carries, so that a table names the version that was measured, not the one someone remembered.
 */
final class PeerVersions {

    private PeerVersions() {
    }

    /** {@code name version}, e.g. {@code Redisson 3.35.0}; just {@code name} if the version cannot be read. */
    static String named(String name, String groupId, String artifactId) {
        String version = version(groupId, artifactId);
        return version == null ? name : name + " " + version;
    }

    /** The artifact's version, or null. */
    static String version(String groupId, String artifactId) {
        return property("/META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties", "version");
    }

    /** Kafka's client version, from the file its client reads it from, or null. */
    static String kafka() {
        return property("/kafka/kafka-version.properties", "version");
    }

    private static String property(String resource, String key) {
        try (InputStream in = PeerVersions.class.getResourceAsStream(resource)) {
            if (in == null) {
                return null;
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty(key);
        } catch (IOException e) {
            return null;
        }
    }
}

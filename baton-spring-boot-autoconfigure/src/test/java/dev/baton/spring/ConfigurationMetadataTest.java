package dev.baton.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** IDEs complete {@code baton.*} from the metadata the configuration processor writes; each entry has a description. */
class ConfigurationMetadataTest {

    @Test
    void everyPropertyIsDescribed() throws IOException {
        JsonNode metadata;
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("the generated metadata").isNotNull();
            metadata = new ObjectMapper().readTree(in);
        }
        Map<String, String> descriptions = new HashMap<>();
        metadata.get("properties").forEach(property -> descriptions.put(property.get("name").asText(),
                property.path("description").asText("")));
        assertThat(descriptions).containsKeys("baton.backend", "baton.group", "baton.profile", "baton.lease-ttl",
                "baton.renew-interval", "baton.node.id", "baton.peer.listen", "baton.quorum.seeds",
                "baton.bully.leader-store", "baton.fencing.jdbc-table");
        assertThat(descriptions.get("baton.backend")).startsWith("Where the leader is elected: memory");
        descriptions.forEach((name, description) -> assertThat(description).as(name).isNotBlank());
    }
}

package dev.baton.postgres.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class MetadataJsonTest {

    @Test
    void readsWhatJsonbEachTextWouldGive() {
        // PostgreSQL's text output of a jsonb object: a space after ':' and ',', keys shortest first.
        String json = "{\"b\": true, \"n\": 1.50, \"o\": {\"x\": [1, \"y,}\"]}, \"z\": null, "
                + "\"s\": \"q\\\"\\\\\\/\\n\\t\\u00e9\\ud83d\\ude00\", \"key with space\": \"\"}";
        assertThat(MetadataJson.read(json)).isEqualTo(Map.of("b", "true", "n", "1.50", "o", "{\"x\": [1, \"y,}\"]}",
                "s", "q\"\\/\n\té\uD83D\uDE00", "key with space", ""));
    }

    @Test
    void noMetadataIsAnEmptyMap() {
        assertThat(MetadataJson.read(null)).isEmpty();
        assertThat(MetadataJson.read("{}")).isEmpty();
        assertThat(MetadataJson.read(" { } ")).isEmpty();
    }

    @Test
    void somethingElseIsRefusedWithItsPosition() {
        assertThatThrownBy(() -> MetadataJson.read("{\"a\": \"b\""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a JSON object");
        assertThatThrownBy(() -> MetadataJson.read("[1]")).hasMessageContaining("expected '{' at character 1");
        assertThatThrownBy(() -> MetadataJson.read("{\"a\": \"\\x\"}")).hasMessageContaining("an escape");
        assertThatThrownBy(() -> MetadataJson.read("{\"a\": [1")).hasMessageContaining("closed");
    }
}

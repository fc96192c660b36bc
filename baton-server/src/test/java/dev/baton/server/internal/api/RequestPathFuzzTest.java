package dev.baton.server.internal.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Fuzzes the check every HTTP request's raw path goes through before routing: it names a problem or none, never
 * throws, and a path it passes percent-decodes to text without control characters. Plain test runs replay the inputs
 * under {@code RequestPathFuzzTestInputs}; see docs/fuzzing.md for a campaign.
 */
class RequestPathFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void pathProblem(byte[] input) {
        String raw = new String(input, StandardCharsets.UTF_8);
        Optional<String> problem = RequestGuards.pathProblem(raw);
        if (problem.isPresent()) {
            assertThat(problem.get()).isNotBlank().doesNotContain("\n");
            return;
        }
        String decoded = URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
        assertThat(decoded.chars().noneMatch(Character::isISOControl)).as("control character in %s", raw).isTrue();
    }
}

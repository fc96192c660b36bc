package dev.baton.bench.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The JMH generator ran when the bench was compiled: its benchmark list names this package's benchmarks. Without it
 * the {@code jmh} command finds nothing to run (javac 23+ skips processors that are only on the class path).
 */
class BenchmarkListTest {

    @Test
    void theGeneratedBenchmarkListNamesTheBenchmarks() throws IOException {
        try (InputStream list = getClass().getClassLoader().getResourceAsStream("META-INF/BenchmarkList")) {
            assertThat(list).as("META-INF/BenchmarkList, written by jmh-generator-annprocess").isNotNull();
            String text = new String(list.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(text).contains(EngineBenchmark.class.getName(), LeaseNoticeBenchmark.class.getName(),
                    NodeInfoCodecBenchmark.class.getName());
        }
    }
}

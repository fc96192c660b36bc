package dev.baton.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.bench.stats.Summary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The charts: a small PNG per run, each curve rising from the fastest sample to the slowest. */
class CdfChartTest {

    private static Summary lognormal(long seed, double medianMillis, int n) {
        Random random = new Random(seed);
        long[] nanos = new long[n];
        for (int i = 0; i < n; i++) {
            nanos[i] = (long) (medianMillis * 1e6 * Math.exp(random.nextGaussian() * 0.6));
        }
        return Summary.of(nanos);
    }

    @Test
    void aCurveRisesFromTheFastestSampleToTheSlowest() {
        Summary s = lognormal(1, 2, 100_000);
        double[][] xy = CdfChart.points(s);
        assertThat(xy[0]).hasSizeLessThanOrEqualTo(CdfChart.POINTS + 5);
        for (int i = 1; i < xy[0].length; i++) {
            assertThat(xy[0][i]).isGreaterThanOrEqualTo(xy[0][i - 1]);
            assertThat(xy[1][i]).isGreaterThanOrEqualTo(xy[1][i - 1]);
        }
        assertThat(xy[0][0]).isEqualTo(s.quantile(0) / 1e6);
        assertThat(xy[0][xy[0].length - 1]).isEqualTo(s.max() / 1e6);
        assertThat(xy[1][xy[1].length - 1]).isEqualTo(100.0);
    }

    @Test
    void aChartIsASmallPng(@TempDir Path dir) throws Exception {
        Map<String, Summary> curves = new LinkedHashMap<>();
        curves.put("Baton close()", lognormal(1, 2, 200));
        curves.put("Redisson RLock", lognormal(2, 3, 200));
        curves.put("Curator LeaderLatch", lognormal(3, 5, 200));
        curves.put("from percentiles only", new Summary(10, 1, 2, 3, 4, 2.5));
        Path png = dir.resolve("charts/handover.png");

        assertThat(CdfChart.write("Graceful handover", curves, png)).isTrue();

        byte[] bytes = Files.readAllBytes(png);
        assertThat(bytes).startsWith(0x89, 'P', 'N', 'G');
        assertThat(bytes.length).isLessThan(60_000);
    }

    @Test
    void aLongNameLosesItsMiddleNotItsFigures() {
        Summary s = Summary.of(new long[] {13_400_000, 163_000_000});
        String label = CdfChart.label("leader close() -> next leader acquired, votes on disk", s);
        assertThat(label).hasSizeLessThanOrEqualTo(CdfChart.MAX_LABEL).startsWith("13.4 / 163 ms  leader clo")
                .endsWith("votes on disk").contains("…");
        assertThat(CdfChart.label("Baton close()", s)).isEqualTo("13.4 / 163 ms  Baton close()");
    }

    @Test
    void noCurveWithSamplesNoChart(@TempDir Path dir) throws Exception {
        assertThat(CdfChart.write("t", Map.of("x", new Summary(1, 1, 1, 1, 1, 1)), dir.resolve("x.png"))).isFalse();
        assertThat(dir.resolve("x.png")).doesNotExist();
    }
}

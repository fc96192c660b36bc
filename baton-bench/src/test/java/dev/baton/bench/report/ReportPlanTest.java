package dev.baton.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** Every run of the report points its missed goals at a page section that exists. */
class ReportPlanTest {

    private static final Path PAGES = Path.of("..", "docs", "benchmarks");

    @Test
    void everyRunNamesAnExistingSectionThatSaysWhereItsTimeGoes() throws IOException {
        for (ReportPlan.Run run : ReportPlan.runs()) {
            String detail = ReportPlan.whereTheTimeGoes(run.id());
            assertThat(detail).as(run.id()).isNotNull();
            String[] parts = detail.split("#", 2);
            Path page = PAGES.resolve(parts[0]);
            assertThat(page).as(run.id()).exists();
            assertThat(Files.readAllLines(page).stream().filter(line -> line.startsWith("#"))
                    .map(ReportPlanTest::anchor)).as(detail).contains(parts[1]);
        }
    }

    /** The anchor a markdown renderer gives a heading: lower case, punctuation dropped, spaces as hyphens. */
    private static String anchor(String heading) {
        return heading.replaceFirst("^#+\\s*", "").toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 -]", "")
                .replace(' ', '-');
    }
}

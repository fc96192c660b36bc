package dev.baton.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The library snippet in the README and in {@code docs/first-election.md} is the {@code // region readme} of
 * {@link LeaderOnlyScheduler}, character for character, so what users copy is code that compiles and that the tests
 * run. Change the example, then paste its region into both documents.
 */
class ReadmeSnippetTest {

    private static final String EXAMPLE = "baton-examples/src/main/java/dev/baton/examples/LeaderOnlyScheduler.java";
    private static final String CLASS_LINE = "public final class LeaderOnlyScheduler {";
    private static final String PASTE = "the java block of %s must be the region readme of " + EXAMPLE
            + " verbatim: paste the region there";

    @Test
    void theReadmeShowsTheExampleVerbatim() throws IOException {
        assertThat(snippetIn("README.md")).as(PASTE, "README.md").isEqualTo(region());
    }

    @Test
    void theFirstElectionPageShowsTheExampleVerbatim() throws IOException {
        assertThat(snippetIn("docs/first-election.md")).as(PASTE, "docs/first-election.md").isEqualTo(region());
    }

    /** The lines between {@code // region readme} and {@code // endregion} in the example's source. */
    private static List<String> region() throws IOException {
        List<String> lines = Files.readAllLines(root().resolve(EXAMPLE));
        int start = lines.indexOf("// region readme");
        int end = lines.indexOf("// endregion");
        assertThat(start).as("// region readme in " + EXAMPLE).isNotNegative();
        assertThat(end).as("// endregion after the region in " + EXAMPLE).isGreaterThan(start);
        return lines.subList(start + 1, end);
    }

    /** The fenced {@code java} block of {@code document} that declares the example's class. */
    private static List<String> snippetIn(String document) throws IOException {
        List<String> block = new ArrayList<>();
        boolean inJava = false;
        for (String line : Files.readAllLines(root().resolve(document))) {
            if (!inJava && line.equals("```java")) {
                inJava = true;
                block.clear();
            } else if (inJava && line.equals("```")) {
                if (block.contains(CLASS_LINE)) {
                    return block;
                }
                inJava = false;
            } else if (inJava) {
                block.add(line);
            }
        }
        throw new AssertionError(document + " has no ```java block with " + CLASS_LINE);
    }

    /** The repository's root: the nearest directory up from here that holds both the README and the example. */
    private static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        for (int up = 0; up < 5 && dir != null; up++, dir = dir.getParent()) {
            if (Files.exists(dir.resolve("README.md")) && Files.exists(dir.resolve(EXAMPLE))) {
                return dir;
            }
        }
        throw new AssertionError("cannot find the repository root (README.md and " + EXAMPLE + ") above "
                + Path.of("").toAbsolutePath());
    }
}

package dev.baton.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The build's public-API check ({@code build-tools/ApiBaseline.java}, run on every published module in
 * {@code verify}) refuses what it promises to refuse, shown on core's own classes: a member that is not in the
 * baseline, a module whose name could share packages with another's, packages outside the module's name, and a
 * module missing from the BOM (these are checked before any comparison). The comparisons start from a baseline the
 * tool records afresh, so these tests do not depend on the committed one, which every {@code verify} compares.
 */
class PublicApiBaselineTest {

    private static final Path REPOSITORY = repositoryRoot();

    @TempDir
    Path root;

    @Test
    void aMemberMissingFromTheBaselineFailsWithTheLineThatWasAdded() throws Exception {
        Path baseline = layout("baton-core");
        assertThat(run("update", "dev.baton.core", baseline).exit).isZero();
        List<String> lines = new ArrayList<>(Files.readAllLines(baseline, StandardCharsets.UTF_8));
        String removed = "  public static dev.baton.core.Baton.ElectionBuilder"
                + " election(dev.baton.core.store.CoordinationStore)";
        assertThat(lines.remove(removed)).as("the baseline lists Baton.election").isTrue();
        Files.write(baseline, lines, StandardCharsets.UTF_8);

        Result result = run("check", "dev.baton.core", baseline);

        assertThat(result.exit).isEqualTo(1);
        assertThat(result.output)
                .contains("The public API differs from baton-core/api/baton-core.api")
                .contains("  + dev.baton.core.Baton: public static dev.baton.core.Baton.ElectionBuilder election(")
                .contains("-Dbaton.api.update=true");
    }

    @Test
    void theUnchangedBaselinePasses() throws Exception {
        Path baseline = layout("baton-core");
        assertThat(run("update", "dev.baton.core", baseline).exit).isZero();

        assertThat(run("check", "dev.baton.core", baseline).exit).isZero();
    }

    @Test
    void twoModulesWhoseNamesCouldSharePackagesFail() throws Exception {
        Path baseline = layout("baton-core");
        Path other = Files.createDirectories(root.resolve("baton-extra/api")).resolve("baton-extra.api");
        Files.writeString(other, "# Public API of dev.baton.core.extra (baton-extra). Generated: do not edit.\n");

        Result result = run("check", "dev.baton.core", baseline);

        assertThat(result.exit).isEqualTo(1);
        assertThat(result.output).contains("could share packages");
    }

    @Test
    void packagesOutsideTheModuleNameFail() throws Exception {
        Path baseline = layout("baton-core");

        Result result = run("check", "dev.baton.core.lease", baseline);

        assertThat(result.exit).isEqualTo(1);
        assertThat(result.output).contains("package dev.baton.core is outside module dev.baton.core.lease");
    }

    @Test
    void aPublishedModuleMissingFromTheBomFails() throws Exception {
        Path baseline = layout("baton-other");

        Result result = run("check", "dev.baton.core", baseline);

        assertThat(result.exit).isEqualTo(1);
        assertThat(result.output).contains("baton-other is published but missing from baton-bom/pom.xml");
    }

    /** A repository root with a BOM that lists baton-core only; returns where {@code artifactId}'s baseline goes. */
    private Path layout(String artifactId) throws IOException {
        Files.createDirectories(root.resolve("baton-bom"));
        Files.writeString(root.resolve("baton-bom/pom.xml"), "<project><dependencyManagement><dependencies>"
                + "<dependency><artifactId>baton-core</artifactId></dependency>"
                + "</dependencies></dependencyManagement></project>\n");
        return Files.createDirectories(root.resolve(artifactId + "/api")).resolve(artifactId + ".api");
    }

    private record Result(int exit, String output) {
    }

    /** Runs the check as the build does: core's classes on the class path of a single-file program. */
    private Result run(String mode, String moduleName, Path baseline) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path classes = Path.of(Baton.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path output = root.resolve("output.txt");
        Process process = new ProcessBuilder(java.toString(), "-XX:TieredStopAtLevel=1", "-classpath",
                classes + File.pathSeparator + System.getProperty("java.class.path"),
                REPOSITORY.resolve("build-tools/ApiBaseline.java").toString(), mode, moduleName,
                classes.toString(), baseline.toString(), root.toString(), "jar")
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("the API check did not finish");
        }
        return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    }

    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve("build-tools/ApiBaseline.java"))) {
                return dir;
            }
        }
        throw new AssertionError("no build-tools/ApiBaseline.java above " + Path.of("").toAbsolutePath());
    }
}

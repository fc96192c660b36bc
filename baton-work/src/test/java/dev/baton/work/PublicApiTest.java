package dev.baton.work;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps baton-work's public surface small: users see {@code dev.baton.work} (the work cluster, its configuration,
 * events, state and items), {@code .plan} (the planner), {@code .source} (desired state sources) and {@code .worker}
 * (the worker protocol's messages and events, the transport SPI and the connection settings). Everything else lives
 * in {@code dev.baton.work.internal..}, which no public signature mentions and no other module uses.
 */
class PublicApiTest {

    private static final String INTERNAL = "dev.baton.work.internal..";
    private static final Set<String> API_PACKAGES = Set.of("dev.baton.work", "dev.baton.work.plan",
            "dev.baton.work.source", "dev.baton.work.worker");

    private static JavaClasses work;
    private static JavaClasses baton;

    @BeforeAll
    static void importClasses() {
        work = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.baton.work");
        baton = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.baton");
    }

    @Test
    void thePublicPackagesHoldOnlyTheApi() {
        assertThat(work.stream().filter(c -> c.getModifiers().contains(JavaModifier.PUBLIC)
                && !c.getPackageName().startsWith("dev.baton.work.internal"))
                .map(JavaClass::getPackageName).distinct()).allMatch(API_PACKAGES::contains);
    }

    @Test
    void noPublicSignatureMentionsAnInternalType() {
        classes().that(areApi()).should(exposeNoInternalType()).check(work);
    }

    @Test
    void noClassOutsideBatonWorkUsesItsInternals() {
        noClasses().that().resideOutsideOfPackage("dev.baton.work..")
                .should().dependOnClassesThat().resideInAPackage(INTERNAL)
                .allowEmptyShould(true)
                .check(baton);
    }

    /**
     * The other modules (the server, the benchmarks, ...) are not on this module's class path, so their sources are
     * read: none may import or name {@code dev.baton.work.internal}.
     */
    @Test
    void noOtherModuleNamesTheInternalPackages() throws IOException {
        Path root = Paths.get("").toAbsolutePath().getParent();
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : modules.filter(m -> Files.isDirectory(m.resolve("src"))
                    && !m.getFileName().toString().equals("baton-work")).toList()) {
                try (Stream<Path> files = Files.walk(module.resolve("src"), 32)) {
                    files.filter(f -> f.toString().endsWith(".java")).forEach(f -> {
                        if (read(f).contains("dev.baton.work.internal")) {
                            offenders.add(root.relativize(f).toString());
                        }
                    });
                }
            }
        }
        assertThat(offenders).isEmpty();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Public classes of the API packages whose enclosing classes (if any) are public too. */
    private static DescribedPredicate<JavaClass> areApi() {
        return DescribedPredicate.describe("are public API types", c -> API_PACKAGES.contains(c.getPackageName())
                && visible(c));
    }

    private static boolean visible(JavaClass c) {
        if (!c.getModifiers().contains(JavaModifier.PUBLIC)) {
            return false;
        }
        return c.getEnclosingClass().map(PublicApiTest::visible).orElse(true);
    }

    private static boolean exported(Set<JavaModifier> modifiers) {
        return modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED);
    }

    private static ArchCondition<JavaClass> exposeNoInternalType() {
        return new ArchCondition<>("expose no type of " + INTERNAL) {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                List<JavaType> exposed = new ArrayList<>();
                c.getRawSuperclass().ifPresent(exposed::add);
                exposed.addAll(c.getInterfaces());
                for (JavaField f : c.getFields()) {
                    if (exported(f.getModifiers())) {
                        exposed.add(f.getType());
                    }
                }
                for (JavaCodeUnit u : c.getCodeUnits()) {
                    if (exported(u.getModifiers()) && !u.getModifiers().contains(JavaModifier.SYNTHETIC)
                            && !u.getModifiers().contains(JavaModifier.BRIDGE)) {
                        exposed.add(u.getReturnType());
                        exposed.addAll(u.getParameterTypes());
                        exposed.addAll(u.getThrowsClause().getTypes());
                    }
                }
                for (JavaType type : exposed) {
                    for (JavaClass raw : type.getAllInvolvedRawTypes()) {
                        if (raw.getPackageName().startsWith("dev.baton.work.internal")) {
                            events.add(SimpleConditionEvent.violated(c, c.getName() + " exposes internal type "
                                    + raw.getName()));
                        }
                    }
                }
            }
        };
    }
}

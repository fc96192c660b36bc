package dev.baton.redis;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noMethods;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps baton-redis's public surface to the store and its options, whatever Redis runs as (one server, Sentinel or
 * a cluster): the connections, routers and scripts live in {@code dev.baton.redis.internal}, and no public method of
 * the API hands out a Lettuce type.
 */
class RedisPublicApiTest {

    private static JavaClasses redis;

    @BeforeAll
    static void importClasses() {
        redis = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.baton.redis");
    }

    @Test
    void theApiPackageExposesOnlyTheStoreItsOptionsAndTheRegistryEntryFormat() {
        // ProcessEntryJson is the registry hash's entry format, public for tools that read or write it directly.
        assertThat(redis.stream().filter(c -> c.getPackageName().equals("dev.baton.redis"))
                .filter(c -> c.getModifiers().contains(JavaModifier.PUBLIC)).map(JavaClass::getName))
                .containsExactlyInAnyOrder(RedisStore.class.getName(), RedisStoreOptions.class.getName(),
                        RedisStoreOptions.Builder.class.getName(), ProcessEntryJson.class.getName());
    }

    @Test
    void noPublicMethodOfTheApiMentionsLettuce() {
        noMethods().that().areDeclaredInClassesThat().resideInAPackage("dev.baton.redis").and().arePublic()
                .should().haveRawReturnType(com.tngtech.archunit.base.DescribedPredicate.describe("a Lettuce type",
                        (JavaClass type) -> type.getPackageName().startsWith("io.lettuce")))
                .check(redis);
    }
}

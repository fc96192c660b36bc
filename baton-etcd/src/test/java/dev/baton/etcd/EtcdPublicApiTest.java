package dev.baton.etcd;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The etcd module's public surface: the store and its options, nothing else, and no jetcd or gRPC type in their
 * signatures, so the client library can change without breaking an application.
 */
class EtcdPublicApiTest {

    private static JavaClasses etcd;

    @BeforeAll
    static void importModule() {
        etcd = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.baton.etcd");
    }

    @Test
    void onlyTheStoreAndItsOptionsArePublicOutsideInternal() {
        assertThat(etcd.stream().filter(c -> c.getPackageName().equals("dev.baton.etcd"))
                .filter(c -> c.getModifiers().contains(com.tngtech.archunit.core.domain.JavaModifier.PUBLIC))
                .map(JavaClass::getName))
                .containsExactlyInAnyOrder("dev.baton.etcd.EtcdStore", "dev.baton.etcd.EtcdStoreOptions",
                        "dev.baton.etcd.EtcdStoreOptions$Builder");
    }

    @Test
    void publicSignaturesNameNoClientLibraryType() {
        DescribedPredicate<JavaClass> clientType = DescribedPredicate.describe("a jetcd or gRPC type",
                c -> c.getPackageName().startsWith("io.etcd") || c.getPackageName().startsWith("io.grpc"));
        methods().that().arePublic().and().areDeclaredInClassesThat().resideInAPackage("dev.baton.etcd")
                .should().haveRawReturnType(DescribedPredicate.not(clientType))
                .check(etcd);
        classes().that().resideInAPackage("dev.baton.etcd..").should().onlyDependOnClassesThat()
                .resideOutsideOfPackages("dev.baton.redis..", "dev.baton.postgres..", "dev.baton.peer..")
                .check(etcd);
    }
}

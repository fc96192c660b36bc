package dev.baton.work;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The direction of the arrows inside baton-work (its public surface is {@link PublicApiTest}'s): the planner and the
 * worker protocol's API stand alone; the internals are layered (the cluster's process, then the leader's
 * reconciliation, then routing, then the worker connections), each using only the layers below it and the API's
 * value types, never the {@link WorkCluster} facade that wires them.
 */
class WorkArchitectureTest {

    /** The internal layers, top first: each may use the ones after it, never the ones before. */
    private static final String[] LAYERS = {"dev.baton.work.internal.cluster..", "dev.baton.work.internal.reconcile..",
        "dev.baton.work.internal.route..", "dev.baton.work.internal.worker.."};

    private static JavaClasses work;

    @BeforeAll
    static void importWork() {
        work = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.baton.work");
    }

    @Test
    void thePlannerDependsOnNothingElseOfBaton() {
        // A pure function over its input: no store, no election, no clock of core's.
        ArchRule rule = noClasses().that().resideInAPackage("dev.baton.work.plan..")
                .should().dependOnClassesThat(resideInAPackage("dev.baton..")
                        .and(resideOutsideOfPackage("dev.baton.work.plan..")));
        rule.check(work);
    }

    @Test
    void theWorkerProtocolApiDependsOnNoOtherPartOfTheWorkCluster() {
        ArchRule rule = noClasses().that().resideInAPackage("dev.baton.work.worker..")
                .should().dependOnClassesThat(resideInAPackage("dev.baton.work..")
                        .and(resideOutsideOfPackage("dev.baton.work.worker..")));
        rule.check(work);
    }

    @Test
    void theInternalLayersUseOnlyTheLayersBelowThem() {
        for (int layer = 1; layer < LAYERS.length; layer++) {
            String[] above = Arrays.copyOfRange(LAYERS, 0, layer);
            ArchRule rule = noClasses().that().resideInAPackage(LAYERS[layer])
                    .should().dependOnClassesThat().resideInAnyPackage(above);
            rule.check(work);
        }
    }

    @Test
    void theInternalsDoNotDependOnTheFacade() {
        ArchRule rule = noClasses().that().resideInAPackage("dev.baton.work.internal..")
                .should().dependOnClassesThat().haveNameMatching("dev\\.baton\\.work\\.WorkCluster(\\$.*)?");
        rule.check(work);
    }

    @Test
    void theRulesSeeTheClassesTheyAreAbout() {
        // A rule over packages that were not imported would pass without checking anything.
        for (String pkg : new String[] {"dev.baton.work.plan", "dev.baton.work.worker",
            "dev.baton.work.internal.cluster", "dev.baton.work.internal.reconcile", "dev.baton.work.internal.route", "dev.baton.work.internal.worker"}) {
            assertThat(work.containPackage(pkg)).as(pkg).isTrue();
        }
    }
}

package dev.baton.peer;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The direction of the arrows inside baton-peer: the protocols (quorum, bully) stand on the shared skeleton
 * ({@code dev.baton.peer.internal}, {@code MemberCard}), which stands on the transport, which knows no protocol. The
 * two protocols know nothing of each other, and the simulated network is for tests: no main class uses it but itself.
 * Each protocol's purity is checked in its own architecture test.
 */
class PeerArchitectureTest {

    private static final String QUORUM = "dev.baton.peer.quorum..";
    private static final String BULLY = "dev.baton.peer.bully..";
    private static final String SKELETON = "dev.baton.peer.internal..";
    private static final String SIMULATION = "dev.baton.peer.sim..";

    private static JavaClasses peer;

    @BeforeAll
    static void importPeer() {
        peer = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.baton.peer");
    }

    @Test
    void theTransportKnowsNoProtocol() {
        ArchRule rule = noClasses().that().resideInAPackage("dev.baton.peer.transport..")
                .should().dependOnClassesThat().resideInAnyPackage(QUORUM, BULLY, SKELETON, SIMULATION,
                        "dev.baton.peer");
        rule.check(peer);
    }

    @Test
    void theSharedSkeletonKnowsNeitherProtocol() {
        ArchRule rule = noClasses().that().resideInAnyPackage(SKELETON, "dev.baton.peer")
                .should().dependOnClassesThat().resideInAnyPackage(QUORUM, BULLY, SIMULATION);
        rule.check(peer);
    }

    @Test
    void theProtocolsDoNotDependOnEachOther() {
        noClasses().that().resideInAPackage(QUORUM).should().dependOnClassesThat().resideInAPackage(BULLY)
                .check(peer);
        noClasses().that().resideInAPackage(BULLY).should().dependOnClassesThat().resideInAPackage(QUORUM)
                .check(peer);
    }

    @Test
    void noMainClassUsesTheSimulatedNetwork() {
        ArchRule rule = noClasses().that().resideOutsideOfPackage(SIMULATION)
                .should().dependOnClassesThat().resideInAPackage(SIMULATION);
        rule.check(peer);
    }

    @Test
    void theRulesSeeTheClassesTheyAreAbout() {
        // A rule over packages that were not imported would pass without checking anything.
        for (String pkg : new String[] {"dev.baton.peer", "dev.baton.peer.internal", "dev.baton.peer.transport",
            "dev.baton.peer.quorum", "dev.baton.peer.bully", "dev.baton.peer.sim", "dev.baton.peer.replica"}) {
            assertThat(peer.containPackage(pkg)).as(pkg).isTrue();
        }
    }
}

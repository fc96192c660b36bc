package dev.baton.server.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testkit.EtcdCluster;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault harness on a private three-member etcd cluster, as {@code baton chaos --backend etcd} runs it: through
 * each of its faults in turn (the etcd leader or another member killed and restarted, or frozen; one node's link to
 * the etcd leader held, so its calls land late; the node faults), with no safety violation. The longer run in docs/etcd.md uses the same code with {@code --trials 30}.
 */
class EtcdChaosTest {

    static final int TRIALS = 10;
    private static final long SEED = 20261125L;

    @TempDir
    Path dir;

    @Test
    void aFixedSetOfTrialsThroughEtcdMemberLossViolatesNoSafetyProperty() {
        Assumptions.assumeTrue(EtcdCluster.whyUnavailable().isEmpty(),
                () -> EtcdCluster.whyUnavailable().orElseThrow());
        ChaosRunSettings settings = new ChaosRunSettings("etcd", TRIALS, SEED, 3, false, Optional.empty(),
                List.of(), true, dir);

        History history;
        try (ChaosRun run = new ChaosRun(settings, ChaosCommand.open(settings), System.out)) {
            history = run.run();
        }
        ChaosVerdict verdict = ChaosVerdict.of(settings, history);
        System.out.println(verdict.text());

        assertThat(verdict.report().trials()).isEqualTo(TRIALS);
        assertThat(verdict.safe()).as(verdict.text()).isTrue();
        assertThat(verdict.text()).contains("etcd-leader-kill", "etcd-member-kill", "etcd-link-held");
    }
}

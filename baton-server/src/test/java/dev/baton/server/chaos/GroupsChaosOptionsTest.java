package dev.baton.server.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.server.BatonCli;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code baton chaos --groups N}: its default, its range, the backends it runs on and the replay command. */
class GroupsChaosOptionsTest {

    @TempDir
    Path dir;

    @Test
    void oneGroupIsTheDefaultAndTheReplayRepeatsMore() {
        ChaosRunSettings one = new ChaosRunSettings("redis", 5, 7, 3, false, Optional.empty(), List.of(), false, dir);
        ChaosRunSettings fifty = one.withGroups(50);

        assertThat(one.groups()).isEqualTo(1);
        assertThat(ChaosVerdict.of(one, History.of()).replay(2)).doesNotContain("--groups");
        assertThat(ChaosVerdict.of(fifty, History.of()).replay(2)).contains(" --trial 2 ").endsWith(" --groups 50");
        assertThat(ChaosVerdict.of(fifty, History.of()).report().title()).contains("50 groups per node");
    }

    @Test
    void moreGroupsRunOnTheStoreBackendsOnly() {
        for (String backend : List.of("redis", "redis-cluster", "postgresql", "etcd", "redis-sentinel",
                "postgresql-standby")) {
            assertThat(ChaosRunSettings.supportsGroups(backend)).as(backend).isTrue();
        }
        for (String backend : List.of("quorum", "peer", "bully")) {
            assertThat(ChaosRunSettings.supportsGroups(backend)).as(backend).isFalse();
        }
    }

    @Test
    void badGroupCountsAreOneLineUsageErrors() {
        assertUsage(List.of("--backend", "redis", "--groups", "0"), "--groups: expected 1 to 500, got 0");
        assertUsage(List.of("--backend", "redis", "--groups", "501"), "--groups: expected 1 to 500, got 501");
        assertUsage(List.of("--backend", "quorum", "--groups", "2"), "use --groups 1 on quorum");
        assertUsage(List.of("--backend", "bully", "--groups", "2"), "use --groups 1 on bully");
    }

    private void assertUsage(List<String> flags, String message) {
        List<String> args = new ArrayList<>(List.of("chaos"));
        args.addAll(flags);
        args.addAll(List.of("--out", dir.toString()));
        ChaosCommand command = (ChaosCommand) new CommandLine(new BatonCli()).parseArgs(args.toArray(String[]::new))
                .subcommand().commandSpec().userObject();
        assertThatThrownBy(command::call).hasMessageContaining(message)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
}

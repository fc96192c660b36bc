package dev.baton.server.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.server.BatonCli;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code --multi-fault P} and {@code --aim MOMENT}: refused out of range with one line naming the flag, repeated in a
 * failing trial's replay command, and a multi-fault trial named by both its faults in the report.
 */
class TrialShapeOptionsTest {

    @TempDir
    Path dir;

    @Test
    void aProbabilityOutsideZeroToOneAndAnUnknownAimAreRefused() {
        assertUsage(List.of("--multi-fault", "2"), "--multi-fault: expected a probability from 0 to 1, got 2.0");
        assertUsage(List.of("--multi-fault", "-0.1"), "--multi-fault: expected a probability from 0 to 1, got -0.1");
        assertUsage(List.of("--aim", "sideways"), "--aim: expected one of none, handover, got 'sideways'");
    }

    @Test
    void theReplayCommandRepeatsTheTrialsShape() {
        ChaosRunSettings settings = new ChaosRunSettings("redis", 40, 1129, 3, false, Optional.empty(), List.of(),
                false, dir).withShape(new TrialShape(0.5, TrialShape.Aim.HANDOVER))
                .withWorkers(ChaosRunSettings.defaultWorkers("redis"));

        assertThat(ChaosVerdict.of(settings, History.of()).replay(7))
                .isEqualTo("baton chaos --backend redis --seed 1129 --trials 40 --trial 7 --multi-fault 0.5 "
                        + "--aim handover");
        assertThat(ChaosVerdict.of(settings.withShape(TrialShape.single()), History.of()).replay(7))
                .isEqualTo("baton chaos --backend redis --seed 1129 --trials 40 --trial 7");
    }

    @Test
    void theReportNamesBothFaultsOfAMultiFaultTrial() {
        History history = History.of(
                new HistoryEvent.Fault(1, FaultKind.STORE_PAUSE, null, Events.ms(0), Events.ms(900)),
                new HistoryEvent.Fault(1, FaultKind.KILL_NODE, "n2", Events.ms(100), Events.ms(950)),
                new HistoryEvent.Trial(1, FaultKind.STORE_PAUSE, false, Events.ms(0), Events.ms(950),
                        Events.ms(1000), null, 7000),
                new HistoryEvent.Fault(2, FaultKind.KILL_NODE, "n1", Events.ms(2000), Events.ms(2500)),
                new HistoryEvent.Trial(2, FaultKind.KILL_NODE, false, Events.ms(2000), Events.ms(2500),
                        Events.ms(2600), null, 7000));

        assertThat(FaultPairs.of(history)).containsExactly(java.util.Map.entry("store-pause + kill-node", 1));
        assertThat(FaultPairs.line(history))
                .isEqualTo("Second faults: 1 trial added one: store-pause + kill-node (1).");
        assertThat(ChaosReport.run("redis", history, List.of()).text())
                .contains("Second faults: 1 trial added one: store-pause + kill-node (1).");
        assertThat(FaultPairs.line(History.of())).isEmpty();
    }

    private void assertUsage(List<String> flags, String message) {
        String[] args = new String[flags.size() + 5];
        args[0] = "chaos";
        args[1] = "--backend";
        args[2] = "redis";
        for (int i = 0; i < flags.size(); i++) {
            args[i + 3] = flags.get(i);
        }
        args[flags.size() + 3] = "--out";
        args[flags.size() + 4] = dir.toString();
        ChaosCommand command = (ChaosCommand) new CommandLine(new BatonCli()).parseArgs(args).subcommand()
                .commandSpec().userObject();
        assertThatThrownBy(command::call).hasMessageContaining(message);
    }
}

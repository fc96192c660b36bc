package dev.baton.work.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.work.internal.worker.LeaderTermFence.Verdict;
import org.junit.jupiter.api.Test;

/** The worker's rule for {@code leaderTerm}, one command at a time; connections are named by strings. */
class LeaderTermFenceTest {

    private final LeaderTermFence<String> fence = new LeaderTermFence<>();

    @Test
    void aCommandOfAnOlderTermIsRefusedOnceANewerLeaderSpoke() {
        assertThat(fence.admit("old", 5)).isEqualTo(Verdict.CURRENT);
        assertThat(fence.admit("new", 6)).isEqualTo(Verdict.CURRENT);

        assertThat(fence.admit("old", 5)).isEqualTo(Verdict.STALE);
        assertThat(fence.admit("new", 6)).isEqualTo(Verdict.CURRENT);
        assertThat(fence.newestTerm()).isEqualTo(6);
    }

    @Test
    void aRefusedCommandDoesNotMoveTheFence() {
        fence.admit("new", 6);
        fence.admit("old", 5);
        fence.closed("new");
        assertThat(fence.newestTerm()).isZero();
    }

    @Test
    void commandsWithoutATermAreCarriedOutWhateverTheFence() {
        fence.admit("new", 6);
        assertThat(fence.admit("tool", FencedCommand.NO_TERM)).isEqualTo(Verdict.NO_TERM);
        assertThat(fence.admit("new", FencedCommand.unfenced(new WorkerCommand.RequestState())))
                .isEqualTo(Verdict.NO_TERM);
        assertThat(fence.newestTerm()).isEqualTo(6);
    }

    @Test
    void aNewerTermFencesOnlyWhileTheConnectionThatBroughtItIsOpen() {
        fence.admit("old", 5);
        fence.admit("new", 6);
        fence.closed("new");

        // The newer leader is gone: its predecessor, still connected, is no more stale than before the fence.
        assertThat(fence.admit("old", 5)).isEqualTo(Verdict.CURRENT);
        assertThat(fence.newestTerm()).isEqualTo(5);
    }

    @Test
    void aLeaderWhoseStoreForgotItsTermsIsHeardOnceTheOldLeaderIsGone() {
        fence.admit("before-restart", 41);
        assertThat(fence.admit("after-restart", 1)).isEqualTo(Verdict.STALE);

        fence.closed("before-restart");
        assertThat(fence.admit("after-restart", 1)).isEqualTo(Verdict.CURRENT);
    }

    @Test
    void aConnectionKeepsTheHighestTermItBroughtAndClearForgetsAll() {
        fence.admit("a", 7);
        fence.admit("a", 9);
        fence.admit("b", 8);
        assertThat(fence.admit("b", 8)).isEqualTo(Verdict.STALE);
        assertThat(fence.newestTerm()).isEqualTo(9);

        fence.clear();
        assertThat(fence.newestTerm()).isZero();
        assertThat(fence.admit("b", 8)).isEqualTo(Verdict.CURRENT);
    }
}

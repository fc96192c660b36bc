package dev.baton.server.chaos;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What {@code baton chaos} was asked to do.
 *
 * @param backend   {@code redis}, {@code postgresql}, {@code quorum} (or its old name {@code peer}) or
 *                  {@code bully}
 * @param trials    how many trials
 * @param seed      the run's seed: every trial's fault and timings derive from it and the trial's number
 * @param nodes     how many {@code baton node} processes (3 to 5)
 * @param naive     run the nodes as the original designs did (no local deadline, an unfenced resource), to show
 *                  what the checkers catch
 * @param onlyTrial replay this trial alone
 * @param faults    restrict the faults to these (empty: every fault the backend supports)
 * @param inTurn    take the faults in turn (trial K gets fault K mod n) instead of drawing them from the seed, so a
 *                  short run covers every fault
 * @param dir       where node logs, the history and the report go
 */
record ChaosRunSettings(String backend, int trials, long seed, int nodes, boolean naive, Optional<Integer> onlyTrial,
        List<FaultKind> faults, boolean inTurn, Path dir) {
}

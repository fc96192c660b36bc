package dev.baton.server.chaos;

import java.nio.file.Path;
import java.time.Duration;
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
 * @param sentinel  the Redis Sentinel deployment's settings ({@code redis-sentinel} only)
 * @param shape     whether trials add a second fault and aim at hand-overs ({@code --multi-fault}, {@code --aim})
 * @param workers   how many simulated workers ({@code baton worker}) the nodes' work cluster runs items on; 0 for
 *                  none, the runs from before workers were added
 * @param groups    how many elections each node runs on its one store session ({@code --groups}); 1 for one, the
 *                  runs from before groups were added
 */
record ChaosRunSettings(String backend, int trials, long seed, int nodes, boolean naive, Optional<Integer> onlyTrial,
        List<FaultKind> faults, boolean inTurn, Path dir, SentinelSettings sentinel, TrialShape shape, int workers,
        int groups) {

    /** Settings with one group per node. */
    ChaosRunSettings(String backend, int trials, long seed, int nodes, boolean naive, Optional<Integer> onlyTrial,
            List<FaultKind> faults, boolean inTurn, Path dir, SentinelSettings sentinel, TrialShape shape,
            int workers) {
        this(backend, trials, seed, nodes, naive, onlyTrial, faults, inTurn, dir, sentinel, shape, workers, 1);
    }

    /** Settings with the Sentinel deployment's defaults, and no workers. */
    ChaosRunSettings(String backend, int trials, long seed, int nodes, boolean naive, Optional<Integer> onlyTrial,
            List<FaultKind> faults, boolean inTurn, Path dir) {
        this(backend, trials, seed, nodes, naive, onlyTrial, faults, inTurn, dir, SentinelSettings.defaults());
    }

    /** Settings with one fault per trial, not aimed, and no workers. */
    ChaosRunSettings(String backend, int trials, long seed, int nodes, boolean naive, Optional<Integer> onlyTrial,
            List<FaultKind> faults, boolean inTurn, Path dir, SentinelSettings sentinel) {
        this(backend, trials, seed, nodes, naive, onlyTrial, faults, inTurn, dir, sentinel, TrialShape.single(), 0);
    }

    /** These settings with trials shaped by {@code trialShape}. */
    ChaosRunSettings withShape(TrialShape trialShape) {
        return new ChaosRunSettings(backend, trials, seed, nodes, naive, onlyTrial, faults, inTurn, dir, sentinel,
                trialShape, workers, groups);
    }

    /** These settings with {@code count} simulated workers. */
    ChaosRunSettings withWorkers(int count) {
        return new ChaosRunSettings(backend, trials, seed, nodes, naive, onlyTrial, faults, inTurn, dir, sentinel,
                shape, count, groups);
    }

    /** These settings with {@code count} elections per node. */
    ChaosRunSettings withGroups(int count) {
        return new ChaosRunSettings(backend, trials, seed, nodes, naive, onlyTrial, faults, inTurn, dir, sentinel,
                shape, workers, count);
    }

    /**
     * Whether {@code --groups} above 1 is possible on {@code backend}: on the store backends, where a process's
     * elections share its store session; the serverless ones run one group per process.
     */
    static boolean supportsGroups(String backend) {
        return !(backend.equals("quorum") || backend.equals("peer") || backend.equals("bully"));
    }

    /**
     * How many workers {@code backend} runs unless told otherwise: 2 where the nodes keep work items in the store they
     * share ({@code redis}, {@code postgresql}), so the work cluster places them; 0 elsewhere.
     */
    static int defaultWorkers(String backend) {
        return backend.equals("redis") || backend.equals("postgresql") ? 2 : 0;
    }

    /**
     * Whether {@code --workers} above 0 is possible on {@code backend}: where the nodes share a store for work items,
     * and on {@code quorum} (or {@code peer}), whose nodes then keep them in their replicated work store. Not the
     * default there, so that a quorum seed runs as it did before workers existed.
     */
    static boolean supportsWorkers(String backend) {
        return backend.equals("redis") || backend.equals("postgresql") || backend.equals("quorum")
                || backend.equals("peer");
    }

    /**
     * How the {@code redis-sentinel} and {@code redis-sentinel-zombie} targets run their deployment.
     *
     * @param waitReplicas    how many replicas the nodes' stores wait for after each acquire, renewal and fenced
     *                        write ({@code ?waitReplicas=}), with {@code min-replicas-to-write} as high on the data
     *                        nodes; 0 for neither
     * @param downAfter       the Sentinels' {@code down-after-milliseconds}
     * @param failoverTimeout the Sentinels' {@code failover-timeout}
     */
    record SentinelSettings(int waitReplicas, Duration downAfter, Duration failoverTimeout) {

        /** No replica wait; a node is down after 1 s, failover timeout 5 s (the testkit topology's defaults). */
        static SentinelSettings defaults() {
            return new SentinelSettings(0, Duration.ofSeconds(1), Duration.ofSeconds(5));
        }

        boolean isDefault() {
            return equals(defaults());
        }
    }
}

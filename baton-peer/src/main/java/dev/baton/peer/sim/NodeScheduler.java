package dev.baton.peer.sim;

import dev.baton.core.time.Scheduler;
import java.time.Duration;

/**
 * One simulated process's view of the scheduler that all nodes of a simulation share: it runs the process's tasks on
 * the shared scheduler until the process {@link #crash() crashes}; from then on its pending and future work is
 * dropped, as a killed process's would be. Give each incarnation of a node its own instance, together with the
 * {@link SimulatedNetwork#crash}/{@link SimulatedNetwork#restart} of its transport.
 */
public final class NodeScheduler implements Scheduler {

    private final Scheduler shared;
    private volatile boolean crashed;

    public NodeScheduler(Scheduler shared) {
        this.shared = shared;
    }

    /** The process dies: nothing it scheduled runs any more. */
    public void crash() {
        crashed = true;
    }

    public boolean crashed() {
        return crashed;
    }

    @Override
    public void execute(Runnable task) {
        shared.execute(() -> {
            if (!crashed) {
                task.run();
            }
        });
    }

    @Override
    public boolean runsTaskOnThisThread() {
        return shared.runsTaskOnThisThread();
    }

    @Override
    public Cancellable schedule(Duration delay, Runnable task) {
        return shared.schedule(delay, () -> {
            if (!crashed) {
                task.run();
            }
        });
    }
}

package dev.baton.work.internal.route;

import dev.baton.work.plan.Plan;
import dev.baton.work.plan.PlanInput;
import dev.baton.work.plan.Planner;
import dev.baton.work.plan.Worker;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/**
 * Seed 001's worker -> process assignment ({@code worker:assignments}): which process's global listeners get the
 * results of each worker. A pure function on the planner, with worker URLs as the items and processes as the
 * "workers": balanced to within one worker per process, and minimal movement, so a process joining takes
 * {@code floor(W / (P + 1))} workers and a process leaving hands on exactly its own.
 */
public final class ProcessAssigner {

    private static final Planner PLANNER = Planner.defaults();

    private ProcessAssigner() {
    }

    /**
     * The new assignment of {@code workerUrls} over {@code processes}, starting from {@code current} (which may name
     * workers and processes that are gone). Empty if there is no process.
     */
    public static Map<String, String> assign(Collection<String> workerUrls, Collection<String> processes,
            Map<String, String> current) {
        PlanInput.Builder input = PlanInput.builder();
        workerUrls.forEach(input::item);
        processes.forEach(p -> input.worker(Worker.online(p)));
        current.forEach((worker, process) -> {
            if (workerUrls.contains(worker)) {
                input.assigned(worker, process);
            }
        });
        Plan plan = PLANNER.plan(input.build());
        return new TreeMap<>(plan.assignment());
    }
}

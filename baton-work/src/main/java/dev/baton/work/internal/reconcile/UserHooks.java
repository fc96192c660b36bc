package dev.baton.work.internal.reconcile;

import dev.baton.work.AssignmentHook;
import dev.baton.work.SessionPatchHandler;
import dev.baton.work.source.DesiredStateSource;
import java.util.Objects;

/**
 * The user's code the leader calls, always on the source executor ({@link LeaderThreads#sourceExecutor()}): where
 * desired items come from besides the store, what an item looks like on its worker, and how session patches are
 * answered.
 */
public record UserHooks(DesiredStateSource source, AssignmentHook hook, SessionPatchHandler sessions) {

    public UserHooks {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(hook, "hook");
        Objects.requireNonNull(sessions, "sessions");
    }
}

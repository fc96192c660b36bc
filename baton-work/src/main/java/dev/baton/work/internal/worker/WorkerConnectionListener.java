package dev.baton.work.internal.worker;

import dev.baton.work.worker.WorkerEvent;
import dev.baton.work.worker.WorkerMessage;

/**
 * Told what happens on a {@link WorkerConnection}.
 *
 * <p>Every call runs on the connection's {@link dev.baton.core.time.Scheduler}, one at a time, in the order things
 * happened; a listener must not block. A message can arrive after {@code worker:offline} was reported only if it was
 * read before: by the time a listener sees a state report, the worker may already be gone; the connection's
 * {@link WorkerConnection#status()} is the truth. A listener that throws is logged and does not break the connection.
 */
public interface WorkerConnectionListener {

    /** A connection event: online, offline, connecting, connected, disconnected, websocket error, detection result. */
    default void onEvent(WorkerEvent event) { }

    /** A valid message from the worker: a {@code stateReport}, {@code imageDetection} or {@code patchSession}. */
    default void onMessage(String url, WorkerMessage message) { }
}

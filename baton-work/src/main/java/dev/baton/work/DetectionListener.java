package dev.baton.work;

import dev.baton.work.worker.WorkerMessage;

/**
 * Receives detection results (seed 001's {@code DetectionCallback}): the worker's {@code imageDetection} as it sent
 * it ({@code subscriptionIdentifier}, {@code timestamp}, {@code data.detection}, {@code modelId}, {@code modelName}).
 *
 * <p>Runs on the work cluster's listener executor (by default its own thread), one call at a time; it must not
 * block. Delivery is at least once: after a lost acknowledgement or a change of leader a result may come twice.
 */
@FunctionalInterface
public interface DetectionListener {

    void onDetection(WorkerMessage.ImageDetection detection);
}

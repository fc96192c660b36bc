package dev.baton.work.internal.cluster;

import dev.baton.core.Registration;
import dev.baton.work.DetectionListener;
import dev.baton.work.WorkClusterEvent;
import dev.baton.work.WorkClusterListener;
import dev.baton.work.internal.reconcile.LocalOutput;
import dev.baton.work.worker.WorkerEvent;
import dev.baton.work.worker.WorkerMessage;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands results and events to this process's listeners on the listener executor, one call at a time; a listener's
 * exception is logged and never stops the others.
 */
final class EventFanOut implements LocalOutput {

    private static final Logger log = LoggerFactory.getLogger(EventFanOut.class);

    private final LocalListeners listeners;
    private final Executor listenerExecutor;
    private final List<WorkClusterListener> clusterListeners = new CopyOnWriteArrayList<>();

    EventFanOut(LocalListeners listeners, Executor listenerExecutor) {
        this.listeners = listeners;
        this.listenerExecutor = listenerExecutor;
    }

    Registration addListener(WorkClusterListener listener) {
        clusterListeners.add(listener);
        return () -> clusterListeners.remove(listener);
    }

    @Override
    public void event(WorkClusterEvent event) {
        listenerExecutor.execute(() -> notifyListeners(event));
    }

    /** Hands a result to this process's listeners: the item's, and the global ones if this process owns it. */
    void deliver(String workerUrl, WorkerMessage.ImageDetection detection, boolean global) {
        deliver(workerUrl, detection, global, () -> { });
    }

    @Override
    public void deliver(String workerUrl, WorkerMessage.ImageDetection detection, boolean global, Runnable done) {
        String item = detection.subscriptionIdentifier();
        List<DetectionListener> perItem = listeners.of(item);
        List<DetectionListener> all = global ? listeners.global() : List.of();
        if (perItem.isEmpty() && all.isEmpty()) {
            done.run();
            return;
        }
        try {
            listenerExecutor.execute(() -> {
                try {
                    for (DetectionListener l : perItem) {
                        call(l, detection);
                    }
                    for (DetectionListener l : all) {
                        call(l, detection);
                    }
                    WorkerEvent.DetectionResult result = new WorkerEvent.DetectionResult(workerUrl, item,
                            detection.detection().isEmpty() ? 0 : 1);
                    notifyListeners(new WorkClusterEvent.WorkerNotice(result));
                } finally {
                    done.run();
                }
            });
        } catch (RuntimeException e) {
            done.run(); // rejected: the executor is shut down
            throw e;
        }
    }

    private static void call(DetectionListener listener, WorkerMessage.ImageDetection detection) {
        try {
            listener.onDetection(detection);
        } catch (RuntimeException e) {
            log.error("a detection listener failed on a result of '{}'", detection.subscriptionIdentifier(), e);
        }
    }

    private void notifyListeners(WorkClusterEvent event) {
        for (WorkClusterListener l : clusterListeners) {
            try {
                l.onEvent(event);
            } catch (RuntimeException e) {
                log.error("a work cluster listener failed on {}", event.name(), e);
            }
        }
    }
}

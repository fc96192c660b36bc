package dev.baton.work;

/**
 * Resolves the fields of an item that belong to one assignment, when the leader assigns it to a worker: seed 001's
 * "fresh pre-signed model URL" for each worker assignment (S3 URLs expire, so one is made when it is needed, not
 * stored). Called on the work cluster's source executor (it may block briefly), for every subscribe the leader
 * sends: a new assignment, a move, and a subscribe sent again after a worker lost the item.
 *
 * <p>The default returns the item unchanged, so its own {@code modelUrl} is sent. An item that has no
 * {@code modelUrl} after the hook cannot be subscribed: it is recorded failed and retried with backoff.
 */
@FunctionalInterface
public interface AssignmentHook {

    /** The hook that changes nothing. */
    AssignmentHook NONE = (item, workerUrl) -> item;

    /**
     * The item as it should be sent to {@code workerUrl}, e.g. {@code item.withModelUrl(presign(item.modelId()))}.
     * Throwing fails this attempt; it is retried with backoff.
     */
    WorkItem resolve(WorkItem item, String workerUrl) throws Exception;
}

package dev.baton.server.internal.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.work.ActualSubscription;
import dev.baton.work.WorkCluster;
import dev.baton.work.WorkClusterState;
import dev.baton.work.WorkerConnectionState;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.util.TreeMap;

/**
 * {@code GET /work/state} and {@code POST /work/regenerate}. {@code GET /work/state}: the node's work cluster as {@link WorkCluster#getState()} reads it from the store, seed
 * 001's {@code DetectorClusterState} in the API's snake_case, plus every recorded item's worker and status under
 * {@code assignments} (the list the dashboard shows). The seed's own {@code assignments} (worker URL -> the process
 * that gets its results) is {@code worker_assignments} here. Every node answers the same, except for
 * {@code process_id}, {@code slave_id} and {@code is_master}, which describe the node that answered.
 *
 * <p>{@code POST /work/regenerate}, on any node: the seed's {@code triggerSubscriptionUpdate}, a
 * {@code regenerate_subscriptions} notice to the leader, which reloads the desired items (the stored ones and the
 * {@code --items-sql} query's) and reconciles now instead of at its next interval. Answered {@code 202} once the notice
 * is sent.
 *
 * <p>{@code POST /work/workers/{id}/drain} and {@code DELETE /work/workers/{id}/drain}, on the leader (the
 * {@code LeaderOnly} gate and the API token run first): start or end a drain of the worker ({@link WorkCluster#drain}),
 * whose items then move make-before-break. {@code {id}} is the worker's URL percent-encoded, or just its
 * {@code host:port} as the URL names it. An optional {@code reason} query parameter is kept with the drain.
 */
final class WorkStateRoutes {

    private final WorkCluster cluster;
    private final StoreCalls calls;

    WorkStateRoutes(WorkCluster cluster, StoreCalls calls) {
        this.cluster = cluster;
        this.calls = calls;
    }

    void register(Javalin app) {
        app.get("/work/state", this::state);
        app.post("/work/regenerate", this::regenerate);
        app.post(DRAIN_PATH, ctx -> drain(ctx, true));
        app.delete(DRAIN_PATH, ctx -> drain(ctx, false));
    }

    /** The drain path, for the token and leader-only gates. */
    static final String DRAIN_PATH = "/work/workers/{id}/drain";

    /** The paths on a node that runs no work cluster: answered with {@code problem}. */
    static void registerWithout(Javalin app, ApiProblem problem) {
        app.get("/work/state", ctx -> {
            throw problem;
        });
        app.post("/work/regenerate", ctx -> {
            throw problem;
        });
        app.post(DRAIN_PATH, ctx -> {
            throw problem;
        });
        app.delete(DRAIN_PATH, ctx -> {
            throw problem;
        });
    }

    /** The answer of a node on a store backend started without {@code --workers}. */
    static ApiProblem notRunning() {
        return new ApiProblem(404, "no_work_cluster", "This node runs no work cluster: start every node of the group"
                + " with --workers ws://HOST:PORT,... (or DETECTOR_WORKERS) to assign the work items to workers");
    }

    private void state(Context ctx) {
        WorkClusterState state = calls.await(cluster.getState(), "reading the work cluster's state");
        ApiJson.send(ctx, 200, json(state));
    }

    private void regenerate(Context ctx) {
        calls.await(cluster.requestRegeneration("POST /work/regenerate"), "sending the regeneration notice");
        ObjectNode json = ApiJson.object();
        json.put("requested", true);
        ApiJson.send(ctx, 202, json);
    }

    private void drain(Context ctx, boolean start) {
        String id = ctx.pathParam("id");
        String url = cluster.workers().stream()
                .filter(w -> w.equals(id) || w.endsWith("://" + id))
                .findFirst()
                .orElseThrow(() -> new ApiProblem(404, "unknown_worker", "No worker '" + id + "' in this work cluster;"
                        + " its workers are " + String.join(", ", cluster.workers())
                        + " (name one by its URL, percent-encoded, or its host:port)"));
        String reason = ctx.queryParam("reason");
        boolean known = start
                ? calls.await(cluster.drain(url, reason == null ? "POST " + ctx.path() : reason), "recording the drain")
                : calls.await(cluster.undrain(url), "ending the drain");
        ObjectNode json = ApiJson.object();
        json.put("worker", url);
        json.put("draining", start);
        if (!start) {
            json.put("was_draining", known);
        }
        ApiJson.send(ctx, 200, json);
    }

    static ObjectNode json(WorkClusterState state) {
        ObjectNode json = ApiJson.object();
        json.put("process_id", state.processId());
        json.put("is_master", state.isMaster());
        json.put("slave_id", state.slaveId());
        json.put("total_workers", state.totalWorkers());
        json.put("total_slaves", state.totalSlaves());
        ArrayNode workers = json.putArray("workers");
        state.workers().forEach(w -> worker(workers.addObject(), w));
        ArrayNode slaves = json.putArray("slaves");
        state.slaves().forEach(s -> slave(slaves.addObject(), s));
        ObjectNode byWorker = json.putObject("worker_assignments");
        new TreeMap<>(state.assignments()).forEach(byWorker::put);
        ArrayNode assignments = json.putArray("assignments");
        state.items().stream().sorted((a, b) -> a.subscriptionIdentifier().compareTo(b.subscriptionIdentifier()))
                .forEach(item -> assignment(assignments.addObject(), item));
        ObjectNode draining = json.putObject("draining");
        new TreeMap<>(state.draining()).forEach(draining::put);
        return json;
    }

    private static void worker(ObjectNode json, WorkerConnectionState w) {
        json.put("url", w.url());
        json.put("process_id", w.processId());
        json.put("online", w.online());
        json.put("status", w.status());
        json.put("cpu_usage", w.cpuUsage());
        json.put("memory_usage", w.memoryUsage());
        json.put("gpu_usage", w.gpuUsage());
        json.put("gpu_memory_usage", w.gpuMemoryUsage());
        json.put("subscription_count", w.subscriptionCount());
        ArrayNode subscriptions = json.putArray("subscriptions");
        w.subscriptions().forEach(subscriptions::add);
        ApiJson.putTime(json, "last_heartbeat", w.lastHeartbeat());
        ApiJson.putTime(json, "connected_at", w.connectedAt());
    }

    private static void slave(ObjectNode json, WorkClusterState.Slave s) {
        json.put("slave_id", s.slaveId());
        json.put("process_id", s.processId());
        json.put("online", s.online());
        json.put("workload", s.workload());
        ApiJson.putTime(json, "last_seen", s.lastSeen());
        json.put("is_master", s.leader());
        if (s.capabilities() == null) {
            json.putNull("capabilities");
        } else {
            ObjectNode c = json.putObject("capabilities");
            c.put("can_process_detections", s.capabilities().canProcessDetections());
            c.put("max_subscriptions", s.capabilities().maxSubscriptions());
            c.put("preferred_workload", s.capabilities().preferredWorkload());
        }
    }

    /** One item: the dashboard's {@code item_id}, {@code worker_id}, {@code status}, and the seed's other fields. */
    private static void assignment(ObjectNode json, ActualSubscription item) {
        json.put("item_id", item.subscriptionIdentifier());
        json.put("worker_id", item.assignedWorkerUrl());
        json.put("status", item.status().json());
        json.put("model_url", item.modelUrl());
        ApiJson.putTime(json, "assigned_at", item.assignedAt());
        ApiJson.putTime(json, "last_seen", item.lastSeen());
        json.put("error", item.error());
        json.put("attempts", item.attempts());
    }
}

package dev.baton.server.internal.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.Election;
import dev.baton.core.Leadership;
import dev.baton.core.store.FencedMapStore;
import dev.baton.core.store.FencedMapWrite;
import dev.baton.core.store.FencedValue;
import dev.baton.http.LeaderGate;
import dev.baton.http.LeaderOnly;
import dev.baton.work.InvalidWorkItemException;
import dev.baton.work.WorkCluster;
import dev.baton.work.WorkItem;
import dev.baton.work.WorkItemJson;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The desired work items (seed 001's desired camera subscriptions), kept in the store's fenced map
 * {@value NodeApi#WORK_ITEMS_MAP} of the node's group: {@code GET /work/items}, {@code GET}, {@code PUT} and
 * {@code DELETE /work/items/{id}}. Any node reads; only the leader writes (the {@link LeaderOnly} gate runs before
 * these handlers), and every write carries the leader's term, so the store itself refuses a write from a leader that
 * has been replaced, whatever that leader still believes. A refused write is answered {@code 503 stale_term}, never
 * with a 2xx.
 *
 * <p>The id is the last path segment, percent-decoded: {@code display-1%3Bcamera-7} is {@code display-1;camera-7},
 * {@code a%2Fb} is {@code a/b}.
 */
final class WorkItemRoutes {

    private static final Logger log = LoggerFactory.getLogger(WorkItemRoutes.class);

    private final Election election;
    private final FencedMapStore store;
    private final LeaderGate gate;
    private final StoreCalls calls;
    private final Optional<WorkCluster> work;
    private final RequestBodies bodies = new RequestBodies();

    /**
     * @param work the node's work cluster, if it runs one: then an item needs a {@code modelUrl} (the node has no
     *             assignment hook to make one), and every accepted write asks the cluster's leader to reconcile now
     */
    WorkItemRoutes(Election election, FencedMapStore store, LeaderGate gate, StoreCalls calls,
            Optional<WorkCluster> work) {
        this.election = election;
        this.store = store;
        this.gate = gate;
        this.calls = calls;
        this.work = work;
    }

    void register(Javalin app) {
        app.get("/work/items", this::list);
        app.get("/work/items/{id}", this::get);
        app.put("/work/items/{id}", this::put);
        app.delete("/work/items/{id}", this::delete);
    }

    /**
     * The same paths on a backend without a shared store ({@code quorum}, {@code bully}): every one answers {@code 501
     * no_shared_store}, whoever leads, because items kept by one node would be gone after a failover.
     */
    static void registerWithoutStore(Javalin app, String backend) {
        ApiProblem problem = noSharedStore(backend);
        Handler refuse = ctx -> {
            throw problem;
        };
        app.get("/work/items", refuse);
        app.get("/work/items/{id}", refuse);
        app.put("/work/items/{id}", refuse);
        app.delete("/work/items/{id}", refuse);
    }

    /** {@code 501 no_shared_store}: the work items and the work cluster need a store that every node shares. */
    static ApiProblem noSharedStore(String backend) {
        return new ApiProblem(501, "no_shared_store", "The work items live in a shared store, and this node's backend"
                + " (" + backend + ") has none: run the nodes with --backend redis://... or postgresql://... to use"
                + " them");
    }

    private void list(Context ctx) {
        SortedMap<String, FencedValue> entries = calls.await(
                store.mapEntries(election.group(), NodeApi.WORK_ITEMS_MAP), "reading the work items");
        ObjectNode json = ApiJson.object();
        ArrayNode items = json.putArray("items");
        entries.forEach((id, value) -> readable(id, value).ifPresent(items::add));
        ApiJson.send(ctx, 200, json);
    }

    private void get(Context ctx) {
        String id = id(ctx);
        Optional<FencedValue> value = calls.await(store.mapGet(election.group(), NodeApi.WORK_ITEMS_MAP, id),
                "reading the work item");
        Optional<ObjectNode> item = value.flatMap(v -> readable(id, v));
        if (item.isEmpty()) {
            throw ApiProblem.notFound("No work item '" + id + "'");
        }
        ApiJson.send(ctx, 200, item.get());
    }

    /** Creates (201) or replaces (200) the item; idempotent. */
    private void put(Context ctx) {
        String id = id(ctx);
        WorkItem item;
        try {
            item = WorkItemJson.parse(bodies.read(ctx), id);
        } catch (InvalidWorkItemException e) {
            throw e.field().isPresent()
                    ? ApiProblem.invalidField("invalid_item", e.field().get(), e.getMessage())
                    : new ApiProblem(400, "malformed_json", e.getMessage());
        }
        if (work.isPresent() && item.modelUrl() == null) {
            throw ApiProblem.invalidField("invalid_item", "modelUrl", "modelUrl is required on nodes that run a work"
                    + " cluster (--workers): the worker the item is assigned to downloads its model from there");
        }
        Optional<Leadership> leadership = election.leadership();
        if (leadership.isEmpty()) {
            ClusterRoutes.notLeading(ctx, gate);
            return;
        }
        long term = leadership.get().term();
        FencedMapWrite write = calls.await(store.fencedPut(election.group(), NodeApi.WORK_ITEMS_MAP, id,
                election.nodeId(), term, WorkItemJson.toJson(item)),
                "writing the work item (the write may or may not have been applied; PUT is idempotent, retry it)");
        if (!write.accepted()) {
            staleTerm(ctx, term, write.currentTerm());
            return;
        }
        itemsChanged("PUT /work/items/" + id);
        ApiJson.send(ctx, write.existed() ? 200 : 201, entry(id, WorkItemJson.toTree(item), term,
                election.nodeId()));
    }

    /** Removes the item: 204, or 404 if there was none. */
    private void delete(Context ctx) {
        String id = id(ctx);
        Optional<Leadership> leadership = election.leadership();
        if (leadership.isEmpty()) {
            ClusterRoutes.notLeading(ctx, gate);
            return;
        }
        long term = leadership.get().term();
        FencedMapWrite write = calls.await(store.fencedRemove(election.group(), NodeApi.WORK_ITEMS_MAP, id,
                election.nodeId(), term),
                "removing the work item (the removal may or may not have been applied; DELETE is idempotent, retry it)");
        if (!write.accepted()) {
            staleTerm(ctx, term, write.currentTerm());
            return;
        }
        if (!write.existed()) {
            throw ApiProblem.notFound("No work item '" + id + "'");
        }
        itemsChanged("DELETE /work/items/" + id);
        ctx.status(204);
    }

    /**
     * Asks the work cluster's leader to regenerate its desired state now (the seed's {@code regenerate_subscriptions})
     * rather than at its next interval; the write ran on the leader, so usually this node's own cluster.
     */
    private void itemsChanged(String change) {
        work.ifPresent(cluster -> {
            try {
                cluster.requestRegeneration(change);
            } catch (IllegalStateException closing) {
                // the node is shutting down: the next leader regenerates when it starts
            }
        });
    }

    private void staleTerm(Context ctx, long term, long currentTerm) {
        if (currentTerm > term) {
            log.warn("The store refused a work-item write of term {}: term {} is newer", term, currentTerm);
            LeaderOnly.answer(ctx, gate.refuse("stale_term", "The store refused this node's term " + term
                    + " because term " + currentTerm + " is newer: this node is no longer the leader, and nothing was"
                    + " written"));
        } else {
            // The serverless work store ends a term that lost its majority without knowing a newer one yet.
            log.warn("The store refused a work-item write of term {}: that term ended before the write was replicated",
                    term);
            LeaderOnly.answer(ctx, gate.refuse("stale_term", "The store refused this node's term " + term
                    + ": the term ended before the write reached a majority (this node is no longer leading), and"
                    + " nothing was written"));
        }
    }

    private static String id(Context ctx) {
        try {
            return WorkItem.checkId(ctx.pathParam("id"));
        } catch (InvalidWorkItemException e) {
            throw ApiProblem.invalidField("invalid_item", "id", e.getMessage());
        }
    }

    /** An entry as the API shows it; a stored value that is not JSON (not written by this API) is skipped. */
    private static Optional<ObjectNode> readable(String id, FencedValue value) {
        JsonNode item;
        try {
            item = ApiJson.MAPPER.readTree(value.value());
        } catch (IOException e) {
            log.warn("Work item '{}' does not hold JSON; it is left out", id);
            return Optional.empty();
        }
        return Optional.of(entry(id, item, value.term(), value.writer()));
    }

    private static ObjectNode entry(String id, JsonNode item, long term, String writer) {
        ObjectNode json = ApiJson.object();
        json.put("id", id);
        json.set("item", item);
        json.put("term", term);
        json.put("written_by", writer);
        return json;
    }
}

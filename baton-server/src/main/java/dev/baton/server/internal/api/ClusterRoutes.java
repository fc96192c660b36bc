package dev.baton.server.internal.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.ClusterStatus;
import dev.baton.core.Election;
import dev.baton.core.LeaderInfo;
import dev.baton.core.Leadership;
import dev.baton.core.MemberStatus;
import dev.baton.core.NodeInfo;
import dev.baton.core.StoreContact;
import dev.baton.core.store.ClusterEvent;
import dev.baton.core.store.EventLogStore;
import dev.baton.core.time.Clock;
import dev.baton.http.LeaderGate;
import dev.baton.http.LeaderOnly;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The seed's cluster endpoints: {@code GET /cluster/status}, {@code /cluster/leader}, {@code /cluster/health},
 * {@code /cluster/events} and {@code POST /cluster/leader/release}. Reads answer on every node, from this node's view
 * of the group; they keep answering while the store is unreachable (with fewer details and a {@code problem}), because
 * that is when an operator needs them most.
 */
final class ClusterRoutes {

    static final int DEFAULT_EVENT_LIMIT = 50;
    static final int MAX_EVENT_LIMIT = 1_000;

    private static final Logger log = LoggerFactory.getLogger(ClusterRoutes.class);

    private final Election election;
    private final Optional<EventLogStore> storeEvents;
    private final LocalEventLog localEvents;
    private final LeaderGate gate;
    private final StoreCalls calls;
    private final Clock clock;
    private final NodeApi.Facts facts;

    ClusterRoutes(Election election, Optional<EventLogStore> storeEvents, LocalEventLog localEvents, LeaderGate gate,
            StoreCalls calls, Clock clock, NodeApi.Facts facts) {
        this.election = election;
        this.storeEvents = storeEvents;
        this.localEvents = localEvents;
        this.gate = gate;
        this.calls = calls;
        this.clock = clock;
        this.facts = facts;
    }

    void register(Javalin app) {
        app.get("/cluster/status", this::status);
        app.get("/cluster/leader", this::leader);
        app.get("/cluster/health", this::health);
        app.get("/cluster/events", this::events);
        app.post("/cluster/leader/release", this::release);
    }

    /**
     * This node's view of the group. If the membership cannot be read, the snapshot still has this node's state and
     * leader, no members, and the failure as its problem (so it reads as not ready).
     */
    ClusterStatus snapshot() {
        try {
            return election.status().get(calls.timeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return partial("interrupted while reading the membership");
        } catch (TimeoutException e) {
            return partial("the store did not answer the membership read within " + calls.timeout().toMillis()
                    + " ms");
        } catch (ExecutionException e) {
            log.debug("Membership read failed: {}", String.valueOf(e.getCause()));
            return partial("the store failed the membership read");
        }
    }

    private ClusterStatus partial(String trouble) {
        return new ClusterStatus(election.group(), election.nodeId(), election.state(), election.leader(), List.of(),
                Optional.of(election.problem().orElse(trouble)), election.storeContact());
    }

    private void status(Context ctx) {
        ClusterStatus status = snapshot();
        facts.metrics().ifPresent(m -> m.recordMembers(status.members()));
        ObjectNode json = ApiJson.object();
        json.put("node_id", status.nodeId());
        json.put("group", status.group());
        json.put("state", status.state().label());
        json.put("is_leader", status.isLeader());
        json.put("leader_id", status.leader().map(LeaderInfo::nodeId).orElse(null));
        json.put("leader_url", leaderUrl(status).orElse(null));
        json.put("term", status.term());
        json.put("cluster_size", status.clusterSize());
        json.put("cluster_ready", status.ready());
        json.put("backend", facts.backend());
        json.put("api_url", facts.advertiseUrl());
        json.put("uptime_seconds", Math.round((clock.nanoTime() - facts.startedNanos()) / 1e6) / 1e3);
        json.put("problem", status.problem().orElse(null));
        // Only store-backed elections have a store to hear from; the peer and bully protocols leave these out.
        status.store().ifPresent(store -> {
            json.put("store_reachable", store.reachable());
            json.put("store_silent_seconds", store.silence().toMillis() / 1e3);
        });
        ArrayNode members = json.putArray("members");
        for (MemberStatus member : status.members()) {
            members.add(member(member));
        }
        ApiJson.putTime(json, "timestamp", clock.instant());
        ApiJson.send(ctx, 200, json);
    }

    private static ObjectNode member(MemberStatus member) {
        NodeInfo node = member.node();
        ObjectNode json = ApiJson.object();
        json.put("node_id", node.id());
        json.put("identifier", node.identifier());
        json.put("api_url", node.apiAddress());
        json.put("role", node.role().name().toLowerCase(Locale.ROOT));
        json.put("state", member.state().name().toLowerCase(Locale.ROOT));
        ApiJson.putTime(json, "last_seen", node.lastSeen());
        ApiJson.putTime(json, "registered_at", node.registeredAt());
        return json;
    }

    private Optional<String> leaderUrl(ClusterStatus status) {
        Optional<String> listed = status.leaderNode().flatMap(NodeInfo::api);
        return listed.isPresent() ? listed : status.leader().flatMap(gate::leaderUrl);
    }

    /**
     * The leader this node knows of. A node whose store has been silent for longer than its limit (one lease TTL)
     * cannot vouch for it, since it may have demoted itself meanwhile: then {@code 503 store_unavailable}.
     */
    private void leader(Context ctx) {
        Optional<StoreContact> silent = election.storeContact().filter(contact -> !contact.reachable());
        if (silent.isPresent()) {
            throw ApiProblem.storeUnavailable("This node " + silent.get().describe()
                    + ", so it cannot tell whether the leader it last saw still leads");
        }
        Optional<LeaderInfo> leader = election.leader();
        if (leader.isEmpty()) {
            ctx.header("Retry-After", "1");
            ApiJson.send(ctx, 503, ApiJson.error("no_leader", "No leader elected"));
            return;
        }
        ObjectNode json = ApiJson.object();
        json.put("leader_id", leader.get().nodeId());
        json.put("term", leader.get().term());
        json.put("api_url", gate.leaderUrl(leader.get()).orElse(null));
        ApiJson.send(ctx, 200, json);
    }

    /** The seed's health check, field for field: 200 when the group is ready, 503 when degraded. */
    private void health(Context ctx) {
        ClusterStatus status = snapshot();
        boolean ready = status.ready();
        ObjectNode json = ApiJson.object();
        json.put("status", ready ? "healthy" : "degraded");
        json.put("clustering", "enabled");
        json.put("node_id", status.nodeId());
        json.put("state", status.state().label());
        json.put("is_leader", status.isLeader());
        json.put("leader_id", status.leader().map(LeaderInfo::nodeId).orElse(null));
        json.put("cluster_size", status.clusterSize());
        json.put("cluster_ready", ready);
        ApiJson.putTime(json, "timestamp", clock.instant());
        json.put("version", facts.version());
        ApiJson.send(ctx, ready ? 200 : 503, json);
    }

    private void events(Context ctx) {
        int limit = limit(ctx.queryParam("limit"));
        ObjectNode json = ApiJson.object();
        json.put("group", election.group());
        List<ClusterEvent> events;
        if (storeEvents.isEmpty()) {
            events = localEvents.recentEvents(election.group(), limit).join();
            json.put("source", "node");
            json.put("message", "The backend (" + facts.backend() + ") has no shared event log; these are this"
                    + " node's own recent events");
        } else {
            try {
                events = calls.await(storeEvents.get().recentEvents(election.group(), limit), "reading the event log");
                json.put("source", "store");
            } catch (ApiProblem storeDown) {
                events = localEvents.recentEvents(election.group(), limit).join();
                json.put("source", "node");
                json.put("message", storeDown.getMessage() + "; these are this node's own recent events");
            }
        }
        ArrayNode list = json.putArray("events");
        for (ClusterEvent event : events) {
            ObjectNode item = list.addObject();
            item.put("id", event.id());
            item.put("node_id", event.nodeId());
            item.put("type", event.type());
            ObjectNode data = item.putObject("data");
            new TreeMap<>(event.data()).forEach(data::put);
            ApiJson.putTime(item, "timestamp", event.at());
        }
        ApiJson.send(ctx, 200, json);
    }

    static int limit(String value) {
        if (value == null) {
            return DEFAULT_EVENT_LIMIT;
        }
        try {
            int limit = Integer.parseInt(value.strip());
            if (limit >= 1 && limit <= MAX_EVENT_LIMIT) {
                return limit;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        String shown = value.length() > 20 ? value.substring(0, 20) + "..." : value;
        throw ApiProblem.invalidField("bad_request", "limit",
                "limit must be a whole number from 1 to " + MAX_EVENT_LIMIT + ", was '" + shown + "'");
    }

    /** Graceful handover: the leader gives up its lease so another node takes over at once. */
    private void release(Context ctx) {
        Optional<Leadership> held = election.leadership();
        if (held.isEmpty()) {
            notLeading(ctx, gate);
            return;
        }
        long term = held.get().term();
        ObjectNode json = ApiJson.object();
        json.put("term", term);
        json.put("node_id", election.nodeId());
        try {
            election.stepDown().get(calls.timeout().toNanos(), TimeUnit.NANOSECONDS);
            json.put("released", true);
            ApiJson.send(ctx, 200, json);
        } catch (TimeoutException | ExecutionException e) {
            log.warn("Release of term {} did not complete: {}", term, e.toString());
            json.put("released", false);
            json.put("message", "This node stepped down, but the store did not confirm the release within "
                    + calls.timeout().toMillis() + " ms; the lease will expire by itself");
            ApiJson.send(ctx, 202, json);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiProblem.storeUnavailable("Interrupted while releasing the lease");
        }
    }

    /** A write that passed the gate, but this node stopped leading before it could run. */
    static void notLeading(Context ctx, LeaderGate gate) {
        LeaderGate.Verdict verdict = gate.check(LeaderOnly.pathAndQuery(ctx));
        if (verdict.passes()) {
            verdict = gate.refuse("not_leader", "This node stopped leading while handling the request");
        }
        LeaderOnly.answer(ctx, verdict);
    }
}

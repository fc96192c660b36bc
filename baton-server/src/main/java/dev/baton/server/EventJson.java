package dev.baton.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.ElectionEvent;
import dev.baton.core.LeaderInfo;
import dev.baton.core.store.FencedWriteResult;
import dev.baton.http.LeaderGate;
import dev.baton.peer.bully.BullyConfig;
import dev.baton.peer.quorum.QuorumConfig;
import dev.baton.work.WorkClusterEvent;
import dev.baton.work.worker.WorkerEvent;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The JSON line schema of {@code baton node}: one object per event, documented in {@code docs/cli.md}. Every line has
 * {@code event} first, then {@code node} (the id of the node that printed it), the event's own fields, and
 * {@code ts} last. Field names and event names are an interface that scripts and tests parse: add fields freely,
 * never rename one.
 */
final class EventJson {

    /** The metadata key under which a bully member carries its process id (seed 004's PID). */
    private static final String BULLY_PID = "bully.pid";

    /**
     * UTC with exactly three fractional digits, whatever the instant's precision: {@link Instant#toString()} would
     * print {@code 17:00:00Z} for a whole second and nanoseconds for a precise one, which breaks fixed-width parsing.
     */
    private static final DateTimeFormatter TIMESTAMP =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private final String nodeId;
    /** The election group every line names after {@code node}, or null for none (a node of one group). */
    private final String group;

    EventJson(String nodeId) {
        this(nodeId, null);
    }

    private EventJson(String nodeId, String group) {
        this.nodeId = nodeId;
        this.group = group;
    }

    /**
     * The same schema with {@code group} after {@code node} on every line: for the hidden {@code --chaos-groups}, whose
     * node runs several elections and the fault harness must tell their lines apart.
     */
    EventJson inGroup(String name) {
        return new EventJson(nodeId, name);
    }

    /** {@code instant} as {@code 2026-11-21T17:00:00.123Z}: UTC, millisecond precision, truncated. */
    static String timestamp(Instant instant) {
        return TIMESTAMP.format(instant);
    }

    /** The line for an election event. */
    ObjectNode event(ElectionEvent event) {
        ObjectNode line = start(event.name());
        if (event instanceof ElectionEvent.ElectionCompleted completed) {
            line.put("leading", completed.leader());
            putLeader(line, completed.currentLeader());
        } else if (event instanceof ElectionEvent.LeadershipAcquired acquired) {
            line.put("term", acquired.term());
            line.put("leader", acquired.leadership().nodeId());
        } else if (event instanceof ElectionEvent.LeadershipLost lost) {
            line.put("term", lost.term());
            line.put("reason", lost.reason().name());
        } else if (event instanceof ElectionEvent.LeaderChanged changed) {
            putLeader(line, changed.leader());
        } else if (event instanceof ElectionEvent.MemberJoined joined) {
            line.put("member", joined.member().id());
            line.put("identifier", joined.member().identifier());
            String processId = joined.member().metadata().get(BULLY_PID);
            if (processId != null) {
                line.put("processId", Long.parseLong(processId));
            }
        } else if (event instanceof ElectionEvent.MemberStateChanged changed) {
            line.put("member", changed.member().id());
            line.put("from", changed.from().name());
            line.put("to", changed.to().name());
        } else if (event instanceof ElectionEvent.MemberRemoved removed) {
            line.put("member", removed.nodeId());
        } else if (event instanceof ElectionEvent.ElectionError error) {
            line.put("message", BatonCli.oneLine(error.message()));
            if (error.cause() != null) {
                line.put("cause", BatonCli.oneLine(error.cause().toString()));
            }
        }
        return finish(line, event.at());
    }

    /**
     * {@code --chaos-hooks}: this node's leadership of {@code term} counts itself valid until {@code deadline}, a real
     * {@link System#nanoTime()} reading ({@link ChaosValidity}); the caller stamps {@code mono}.
     */
    ObjectNode validUntil(long term, long deadline, Instant at) {
        ObjectNode line = start("valid-until");
        line.put("term", term);
        line.put("deadline", deadline);
        return finish(line, at);
    }

    /** The first line a node prints: who it is and what it runs on. */
    ObjectNode nodeStarted(NodeSettings settings, String backend, long pid, Instant at) {
        ObjectNode line = start("node-started");
        line.put("identifier", settings.identifier());
        line.put("group", settings.group());
        line.put("backend", backend);
        line.put("profile", settings.profile());
        if (settings.backend() instanceof BackendSpec.Store store) {
            line.put("leaseTtlMs", store.config().leaseTtl().toMillis());
            line.put("renewIntervalMs", store.config().renewInterval().toMillis());
            line.put("checkIntervalMs", store.config().checkInterval().toMillis());
        } else if (settings.backend() instanceof BackendSpec.Peer peer) {
            QuorumConfig config = peer.config();
            line.put("listen", peer.listen().format());
            ArrayNode seeds = line.putArray("seeds");
            config.seeds().forEach(seed -> seeds.add(seed.format()));
            line.put("clusterSize", config.clusterSize());
            line.put("heartbeatIntervalMs", config.heartbeatInterval().toMillis());
            line.put("heartbeatTimeoutMs", config.heartbeatTimeout().toMillis());
            line.put("ttlTimeoutMs", config.ttlTimeout().toMillis());
            line.put("retryIntervalMs", config.retryInterval().toMillis());
            line.put("sharedSecret", peer.secret().isPresent());
            if (peer.dataDir().isPresent()) {
                line.put("dataDir", peer.dataDir().get().toString());
            } else {
                line.putNull("dataDir");
            }
        } else if (settings.backend() instanceof BackendSpec.Bully bully) {
            BullyConfig config = bully.config();
            line.put("listen", bully.listen().format());
            line.put("leaderStore", bully.leaderStoreLabel());
            line.put("pingIntervalMs", config.pingInterval().toMillis());
            line.put("suspectAfter", config.suspectAfter());
            line.put("electionTimeoutMs", config.electionTimeout().toMillis());
            line.put("holdDownMs", config.holdDown().toMillis());
            line.put("sharedSecret", bully.secret().isPresent());
        }
        settings.fencedWrites().ifPresent(interval -> line.put("fencedWritesMs", interval.toMillis()));
        ChaosSettings chaos = settings.chaos();
        if (chaos.hooks()) {
            line.put("chaosHooks", true);
        }
        if (chaos.clockRate() != 1.0) {
            line.put("clockRate", chaos.clockRate());
        }
        chaos.fencedWritesTo().ifPresent(to -> line.put("fencedWritesTo", to.format()));
        if (chaos.naive()) {
            line.put("naive", true);
        }
        settings.work().ifPresent(work -> {
            ArrayNode workers = line.putArray("workers");
            work.workers().forEach(workers::add);
            work.items().ifPresent(items -> line.put("itemsDb", items.describeDb()));
        });
        settings.http().ifPresent(http -> {
            line.put("apiUrl", http.advertiseUrl());
            line.put("leaderRedirect", http.mode() == LeaderGate.Mode.REDIRECT);
        });
        line.put("pid", pid);
        return finish(line, at);
    }

    /**
     * The line for one fenced write. {@code at} is when the write was sent, after the local validity check, so that
     * an accepted write's {@code ts} is always earlier than the moment the store accepted it.
     *
     * @param currentTerm the newest term the store knew when it decided
     */
    ObjectNode fencedWrite(long term, long seq, boolean accepted, long currentTerm, Instant at) {
        return fencedWrite(term, seq, new FencedWriteResult(accepted, currentTerm), null, at);
    }

    /**
     * The line for one fenced write whose verdict is {@code result} ({@code outcome} {@code ok} or {@code refused},
     * with {@code accepted} and {@code currentTerm}), or, when {@code result} is null, whose outcome is unknown: it
     * timed out or failed, and the resource may or may not have applied it ({@code outcome} {@code unknown} and
     * {@code message}, no {@code accepted}).
     */
    ObjectNode fencedWrite(long term, long seq, FencedWriteResult result, String problem, Instant at) {
        ObjectNode line = start("fenced-write");
        line.put("term", term);
        line.put("seq", seq);
        if (result != null) {
            line.put("outcome", result.accepted() ? "ok" : "refused");
            line.put("accepted", result.accepted());
            line.put("currentTerm", result.currentTerm());
        } else {
            line.put("outcome", "unknown");
            line.put("message", BatonCli.oneLine(problem));
        }
        return finish(line, at);
    }

    /**
     * Adds {@code field} to a finished line, keeping {@code ts} last: for the fault harness's real-clock stamps
     * ({@code mono}, {@code since}, {@code sent}, {@code answered}).
     */
    static ObjectNode stamp(ObjectNode line, String field, long value) {
        JsonNode ts = line.remove("ts");
        line.put(field, value);
        if (ts != null) {
            line.set("ts", ts);
        }
        return line;
    }

    /**
     * The line for a work cluster event, or empty for the events the node does not print (connection attempts, and
     * each result: those are summed up in {@link #detections}).
     */
    Optional<ObjectNode> work(WorkClusterEvent event, Instant at) {
        ObjectNode line;
        if (event instanceof WorkClusterEvent.WorkerNotice notice) {
            WorkerEvent worker = notice.event();
            String name = worker instanceof WorkerEvent.Online ? "worker-online"
                    : worker instanceof WorkerEvent.Offline ? "worker-offline"
                    : worker instanceof WorkerEvent.WebSocketError ? "worker-error" : null;
            if (name == null) {
                return Optional.empty();
            }
            line = start(name);
            line.put("worker", worker.url());
            if (worker instanceof WorkerEvent.Offline offline) {
                line.put("reason", BatonCli.oneLine(offline.reason()));
            } else if (worker instanceof WorkerEvent.WebSocketError error) {
                line.put("message", BatonCli.oneLine(error.error()));
            }
            return Optional.of(finish(line, at));
        }
        if (event instanceof WorkClusterEvent.ItemAssigned assigned) {
            line = start("item-assigned");
            line.put("item", assigned.item());
            line.put("worker", assigned.workerUrl());
        } else if (event instanceof WorkClusterEvent.ItemMoved moved) {
            line = start("item-moved");
            line.put("item", moved.item());
            line.put("from", moved.fromWorkerUrl());
            line.put("to", moved.toWorkerUrl());
        } else if (event instanceof WorkClusterEvent.ItemUnassigned unassigned) {
            line = start("item-unassigned");
            line.put("item", unassigned.item());
            line.put("from", unassigned.fromWorkerUrl());
            line.put("reason", BatonCli.oneLine(unassigned.reason()));
        } else if (event instanceof WorkClusterEvent.WorkerDraining draining) {
            line = start("worker-draining");
            line.put("worker", draining.workerUrl());
            line.put("reason", BatonCli.oneLine(draining.reason()));
            line.put("announced", draining.announced());
        } else {
            return Optional.empty();
        }
        return Optional.of(finish(line, at));
    }

    /**
     * The summary of the detection results this node's listeners received since the last one: {@code results} in
     * all and {@code perWorker} (worker URL -> results).
     */
    ObjectNode detections(Map<String, Long> perWorker, Instant at) {
        ObjectNode line = start("detections");
        line.put("results", perWorker.values().stream().mapToLong(Long::longValue).sum());
        ObjectNode workers = line.putObject("perWorker");
        new TreeMap<>(perWorker).forEach(workers::put);
        return finish(line, at);
    }

    /**
     * Why this node has no leader: {@code reason} (one line for people) and {@code waitingMs}, how long it has been
     * waiting. Printed now and then while the wait lasts; see {@link LeaderWaitLines}.
     */
    ObjectNode waitingForLeader(String reason, Duration waited, Instant at) {
        ObjectNode line = start("waiting-for-leader");
        line.put("reason", BatonCli.oneLine(reason));
        line.put("waitingMs", waited.toMillis());
        return finish(line, at);
    }

    /**
     * On a serverless backend with {@code --workers}: this node's replica of the work items holds the group's state
     * again since the node started (empty), taken in {@code term}.
     */
    ObjectNode workReplicaReady(long term, Instant at) {
        ObjectNode line = start("work-replica-ready");
        line.put("term", term);
        return finish(line, at);
    }

    /** An error outside the election itself, e.g. a fenced write the store did not answer. */
    ObjectNode error(String message, Instant at) {
        ObjectNode line = start("error");
        line.put("message", BatonCli.oneLine(message));
        return finish(line, at);
    }

    /**
     * {@code --chaos-hooks}: the answer to a command read from stdin, {@code command} as given; the caller adds what
     * it changed.
     */
    ObjectNode chaosCommand(String command, Instant at) {
        ObjectNode line = start("chaos-command");
        line.put("command", BatonCli.oneLine(command));
        return finish(line, at);
    }

    /** Adds an empty array {@code field} to a finished line, keeping {@code ts} last, and returns the array. */
    static ArrayNode stampArray(ObjectNode line, String field) {
        JsonNode ts = line.remove("ts");
        ArrayNode array = line.putArray(field);
        if (ts != null) {
            line.set("ts", ts);
        }
        return array;
    }

    /** Adds {@code field} to a finished line, keeping {@code ts} last, and returns the line. */
    static ObjectNode stampField(ObjectNode line, String field, boolean value) {
        JsonNode ts = line.remove("ts");
        line.put(field, value);
        if (ts != null) {
            line.set("ts", ts);
        }
        return line;
    }

    /** The last line of a node that stopped on a signal, after it released its leadership. */
    ObjectNode nodeStopped(Instant at) {
        return finish(start("node-stopped"), at);
    }

    private ObjectNode start(String event) {
        ObjectNode line = JSON.objectNode();
        line.put("event", event);
        line.put("node", nodeId);
        if (group != null) {
            line.put("group", group);
        }
        return line;
    }

    private static void putLeader(ObjectNode line, Optional<LeaderInfo> leader) {
        if (leader.isPresent()) {
            line.put("leader", leader.get().nodeId());
            line.put("term", leader.get().term());
        } else {
            line.putNull("leader");
        }
    }

    private static ObjectNode finish(ObjectNode line, Instant at) {
        line.put("ts", timestamp(at));
        return line;
    }
}

package dev.baton.worker.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a simulated worker holds and how it answers commands: the subscriptions it was given, the sessions set per
 * display, and every message received. A command of a deposed leader (its {@code leaderTerm} below a newer leader's,
 * {@link LeaderTermFence}) is recorded as refused and neither carried out nor answered. Thread-safe: commands arrive
 * on the server's thread while the worker's timer reads the subscriptions.
 */
final class WorkerProtocol {

    private static final Logger log = LoggerFactory.getLogger(WorkerProtocol.class);

    /** Where an answer goes: the connection the command came on. */
    interface Reply {
        void send(String text);
    }

    private final Map<String, ObjectNode> subscriptions = new ConcurrentHashMap<>();
    // Subscribed but not running yet (a model still loading): only with a start-up delay.
    private final Map<String, ObjectNode> starting = new ConcurrentHashMap<>();
    private volatile java.time.Duration startupDelay = java.time.Duration.ZERO;
    private volatile java.util.function.BiConsumer<java.time.Duration, Runnable> timer;
    private final Map<String, JsonNode> sessions = new ConcurrentHashMap<>();
    private final List<String> received = new CopyOnWriteArrayList<>();
    private final List<String> refused = new CopyOnWriteArrayList<>();
    private final LeaderTermFence fence = new LeaderTermFence();
    private volatile double cpuUsage = 10.0;
    private volatile double memoryUsage = 20.0;
    private final Map<String, Double> costs = new ConcurrentHashMap<>();

    /**
     * Records a command that came on {@code connection} and answers it as a worker does; text that is not JSON is
     * recorded and ignored. Judging the term and carrying the command out are one step, so a newer leader's command
     * on another connection cannot slip in between; {@code judged} hears the verdict inside that step, so that the
     * verdicts of one worker are told in the order they took effect.
     */
    synchronized void onCommand(Object connection, String text, Reply reply, Judged judged) {
        received.add(text);
        JsonNode message = WorkerJson.read(text);
        if (message == null) {
            return;
        }
        boolean admitted = judge(connection, text, message);
        judged.verdict(admitted);
        if (admitted) {
            carryOut(message, reply);
        }
    }

    /** Told whether a command was carried out, while no other command can take effect. */
    interface Judged {
        void verdict(boolean carriedOut);
    }

    private boolean judge(Object connection, String text, JsonNode message) {
        String type = message.path("type").asText("");
        long term = LeaderTermFence.termOf(message);
        if (!fence.admit(connection, term)) {
            refused.add(text);
            if (term == LeaderTermFence.UNREADABLE) {
                log.info("refused {}: its leaderTerm {} is not a positive integer", type, message.path("leaderTerm"));
            } else {
                log.info("refused {} of leader term {}: a leader of term {} is connected", type, term,
                        fence.newestTerm());
            }
            return false;
        }
        return true;
    }

    private void carryOut(JsonNode message, Reply reply) {
        String type = message.path("type").asText("");
        JsonNode payload = message.path("payload");
        switch (type) {
            case "subscribe" -> {
                String id = payload.path("subscriptionIdentifier").asText(null);
                if (id != null && payload instanceof ObjectNode p) {
                    start(id, p.deepCopy(), reply);
                }
                reply.send(stateReport());
            }
            case "unsubscribe" -> {
                String id = payload.path("subscriptionIdentifier").asText("");
                starting.remove(id);
                subscriptions.remove(id);
                reply.send(stateReport());
            }
            case "requestState" -> reply.send(stateReport());
            case "setSessionId" -> {
                String display = payload.path("displayIdentifier").asText(null);
                if (display != null) {
                    sessions.put(display, payload.path("sessionId"));
                }
            }
            default -> { } // patchSessionResult and anything else: recorded, no answer
        }
    }

    /**
     * Makes every new subscription take {@code delay} to start (as a worker loading a model): until then it is not
     * running, not listed in reports; then it runs and a report says so. {@code timer} runs the delayed start.
     */
    void startupDelay(java.time.Duration delay, java.util.function.BiConsumer<java.time.Duration, Runnable> timer) {
        this.timer = timer;
        this.startupDelay = delay;
    }

    private void start(String id, ObjectNode payload, Reply reply) {
        java.time.Duration delay = startupDelay;
        if (delay.isZero() || subscriptions.containsKey(id)) {
            subscriptions.put(id, payload);
            return;
        }
        starting.put(id, payload);
        timer.accept(delay, () -> {
            if (starting.remove(id, payload)) {
                subscriptions.put(id, payload);
                reply.send(stateReport());
            }
        });
    }

    /** A {@code stateReport} with the current usage and subscriptions. */
    String stateReport() {
        return WorkerJson.stateReport(cpuUsage, memoryUsage, subscriptions, costs);
    }

    /** A backend connection closed: the leader terms it brought fence nothing any more. */
    void closed(Object connection) {
        fence.closed(connection);
    }

    /** Forgets the subscriptions, sessions and leader terms, as a process that died. */
    synchronized void forget() {
        starting.clear();
        subscriptions.clear();
        sessions.clear();
        fence.clear();
    }

    void setCpuUsage(double value) {
        cpuUsage = value;
    }

    void setMemoryUsage(double value) {
        memoryUsage = value;
    }

    void setItemCost(String subscriptionIdentifier, Double cost) {
        if (cost == null) {
            costs.remove(subscriptionIdentifier);
        } else {
            costs.put(subscriptionIdentifier, cost);
        }
    }

    /** The {@code subscribe} payloads held now (a snapshot). */
    List<ObjectNode> payloads() {
        return new ArrayList<>(subscriptions.values());
    }

    boolean hasSubscriptions() {
        return !subscriptions.isEmpty();
    }

    int subscriptionCount() {
        return subscriptions.size();
    }

    Set<String> subscriptionIds() {
        return Collections.unmodifiableSet(new TreeSet<>(subscriptions.keySet()));
    }

    String payloadOf(String subscriptionIdentifier) {
        ObjectNode payload = subscriptions.get(subscriptionIdentifier);
        return payload == null ? null : payload.toString();
    }

    String sessionOf(String displayIdentifier) {
        JsonNode id = sessions.get(displayIdentifier);
        return id == null ? null : id.toString();
    }

    List<String> received() {
        return List.copyOf(received);
    }

    List<String> refused() {
        return List.copyOf(refused);
    }

    long newestLeaderTerm() {
        return fence.newestTerm();
    }
}

package dev.baton.bench.work;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.worker.sim.SimulatedWorker;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When the commands a benchmark waits for reach the simulated workers: {@link #expect} before the action, then wait
 * for the future, which completes with the arrival time ({@link System#nanoTime()}) stamped by the worker's
 * listener as the command arrives.
 */
final class CommandArrivals {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** {@code type + " " + subscriptionIdentifier} -> completed with the arrival time. */
    private final Map<String, CompletableFuture<Long>> waiting = new ConcurrentHashMap<>();

    /** The listener to give every simulated worker. */
    SimulatedWorker.Listener listener() {
        return new SimulatedWorker.Listener() {
            @Override
            public void onCommand(String json) {
                arrived(json, System.nanoTime());
            }
        };
    }

    /** Completes when a {@code type} command ({@code subscribe}, {@code unsubscribe}) for the item arrives. */
    CompletableFuture<Long> expect(String type, String subscriptionIdentifier) {
        CompletableFuture<Long> arrival = new CompletableFuture<>();
        String key = type + " " + subscriptionIdentifier;
        waiting.put(key, arrival);
        arrival.whenComplete((at, error) -> waiting.remove(key, arrival));
        return arrival;
    }

    private void arrived(String json, long at) {
        try {
            JsonNode message = JSON.readTree(json);
            CompletableFuture<Long> arrival = waiting.get(message.path("type").asText() + " "
                    + message.path("payload").path("subscriptionIdentifier").asText());
            if (arrival != null) {
                arrival.complete(at);
            }
        } catch (IOException e) {
            // not a command the benchmark waits for
        }
    }
}

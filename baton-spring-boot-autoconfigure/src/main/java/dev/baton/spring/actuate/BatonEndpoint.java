package dev.baton.spring.actuate;

import dev.baton.core.Election;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * {@code /actuator/baton}: {@code GET} shows this node's election (role, leader, term, margin to the local
 * deadline, store reachability); {@code POST} releases this node's leadership so another node takes over (it
 * contends again later), and answers whether there was one to release.
 *
 * <p>The write operation changes who leads: expose it only to operators. With Spring Security on the class path,
 * Spring Boot requires an authenticated user for every endpoint but health; restrict {@code /actuator/baton} to an
 * operator role, or keep only the read operation with {@code management.endpoint.baton.access=read-only}.
 */
@Endpoint(id = "baton")
public class BatonEndpoint {

    /** How long a release waits for the store before answering. */
    static final Duration RELEASE_TIMEOUT = Duration.ofSeconds(10);

    private final Election election;

    public BatonEndpoint(Election election) {
        this.election = Objects.requireNonNull(election, "election");
    }

    /** This node's election as it knows it; no store call. */
    @ReadOperation
    public Map<String, Object> status() {
        return BatonStatus.of(election);
    }

    /** Releases this node's leadership, if it holds one; the store's lease is released before this answers. */
    @WriteOperation
    public Map<String, Object> release() {
        OptionalLong term = election.leadership().map(l -> OptionalLong.of(l.term())).orElse(OptionalLong.empty());
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("released", term.isPresent());
        term.ifPresent(value -> answer.put("term", value));
        if (term.isEmpty()) {
            answer.put("message", "this node does not lead " + election.group());
            return answer;
        }
        try {
            election.stepDown().get(RELEASE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            answer.put("message", "interrupted while releasing");
        } catch (ExecutionException | TimeoutException e) {
            // The node stopped leading at once; only telling the store took too long or failed.
            answer.put("message", "stopped leading; releasing the lease in the store did not finish: " + e);
        }
        return answer;
    }
}

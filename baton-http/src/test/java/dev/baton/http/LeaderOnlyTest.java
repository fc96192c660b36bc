package dev.baton.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.core.Election;
import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link LeaderOnly#handler} in a plain Javalin app, as a user would install it. */
class LeaderOnlyTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER).build();

    private static GateCluster cluster;
    private final List<Javalin> apps = new ArrayList<>();

    @BeforeAll
    static void elect() throws Exception {
        cluster = new GateCluster();
    }

    @AfterAll
    static void closeCluster() {
        cluster.close();
    }

    @AfterEach
    void stopApps() {
        apps.forEach(Javalin::stop);
    }

    @Test
    void theLeaderServesWrites() throws Exception {
        String base = app(cluster.leader, LeaderGate.Mode.FAILOVER);

        HttpResponse<String> response = send(base, "POST", "/orders/1");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("done POST");
    }

    @Test
    void aFollowerAnswers503WithTheLeadersIdAndUrl() throws Exception {
        String base = app(cluster.follower, LeaderGate.Mode.FAILOVER);

        HttpResponse<String> response = send(base, "PUT", "/orders/1");

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("X-Leader-Id")).hasValue("L");
        assertThat(response.headers().firstValue("X-Leader-Url")).hasValue(GateCluster.LEADER_URL);
        assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.path("error").asText()).isEqualTo("not_leader");
        assertThat(body.path("leader_id").asText()).isEqualTo("L");
        assertThat(body.path("leader_url").asText()).isEqualTo(GateCluster.LEADER_URL);
        assertThat(body.path("term").asLong()).isEqualTo(cluster.leader.leadership().orElseThrow().term());
    }

    @Test
    void inRedirectModeAFollowerAnswers307ToTheSamePathAndQueryOnTheLeader() throws Exception {
        String base = app(cluster.follower, LeaderGate.Mode.REDIRECT);

        HttpResponse<String> response = send(base, "DELETE", "/orders/a%2Fb?force=true");

        assertThat(response.statusCode()).isEqualTo(307);
        assertThat(response.headers().firstValue("Location"))
                .hasValue(GateCluster.LEADER_URL + "/orders/a%2Fb?force=true");
        assertThat(response.headers().firstValue("X-Leader-Id")).hasValue("L");
    }

    @Test
    void readsPassOnAFollower() throws Exception {
        String base = app(cluster.follower, LeaderGate.Mode.FAILOVER);

        assertThat(send(base, "GET", "/orders/1").body()).isEqualTo("done GET");
    }

    @Test
    void withoutALeaderWritesAre503NoLeader() throws Exception {
        String base = app(cluster.leaderless, LeaderGate.Mode.REDIRECT);

        HttpResponse<String> response = send(base, "PATCH", "/orders/1");

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(response.headers().firstValue("X-Leader-Id")).isEmpty();
        assertThat(JSON.readTree(response.body()).path("error").asText()).isEqualTo("no_leader");
    }

    private String app(Election election, LeaderGate.Mode mode) {
        Javalin app = Javalin.create(config -> config.showJavalinBanner = false);
        app.before("/orders/*", LeaderOnly.handler(election, mode));
        for (var method : List.of("GET", "POST", "PUT", "DELETE", "PATCH")) {
            app.addHttpHandler(io.javalin.http.HandlerType.valueOf(method), "/orders/{id}",
                    ctx -> ctx.result("done " + method));
        }
        app.start("127.0.0.1", 0);
        apps.add(app);
        return "http://127.0.0.1:" + app.port();
    }

    static HttpResponse<String> send(String base, String method, String pathAndQuery) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(base + pathAndQuery))
                .method(method, HttpRequest.BodyPublishers.ofString("{}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}

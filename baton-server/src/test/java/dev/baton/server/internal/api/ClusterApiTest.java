package dev.baton.server.internal.api;

import static dev.baton.server.internal.api.HttpCalls.get;
import static dev.baton.server.internal.api.HttpCalls.put;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.memory.InMemoryStore;
import dev.baton.core.store.FencedValue;
import dev.baton.server.internal.api.HttpCalls.Reply;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Three nodes in one JVM on one in-memory store, each serving the HTTP API with a bearer token for writes, as
 * {@code baton node --http --api-token-file} runs them: the read endpoints' shapes, leader-only writes on followers,
 * the work items with their ids and validation, and every kind of error answered as JSON. No test here changes who
 * leads (see {@link LeaderReleaseApiTest}), so they share one cluster.
 */
class ClusterApiTest {

    static final String GROUP = "api";
    static final String TOKEN = "s3cret-t0ken";
    static final String[] AUTH = {"Authorization", "Bearer " + TOKEN, "Content-Type", "application/json"};
    static final String ITEM = "{\"rtspUrl\":\"rtsp://cam-7.local/stream\",\"modelId\":42,\"modelName\":\"plates\"}";
    private static final Pattern TIMESTAMP = Pattern.compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z");

    private static InMemoryStore store;
    private static ApiNode first;
    private static ApiNode second;
    private static ApiNode third;

    @BeforeAll
    static void startCluster() throws Exception {
        store = new InMemoryStore();
        first = ApiNode.builder(store, GROUP, "n1").token(TOKEN).start();
        assertThat(first.election().awaitElected(Duration.ofSeconds(10))).isTrue();
        second = ApiNode.builder(store, GROUP, "n2").token(TOKEN).start();
        third = ApiNode.builder(store, GROUP, "n3").token(TOKEN).start();
        await().atMost(Duration.ofSeconds(10)).until(() ->
                get(first.url("/cluster/status")).json().path("cluster_size").asInt() == 3
                        && second.election().leader().isPresent() && third.election().leader().isPresent());
    }

    @AfterAll
    static void stopCluster() {
        for (ApiNode node : new ApiNode[] {third, second, first}) {
            if (node != null) {
                node.close();
            }
        }
    }

    @Test
    void theDashboardsFilesAreServedWithACharset() {
        assertThat(get(second.url("/")).header("Content-Type")).contains("text/html").containsIgnoringCase("utf-8");
        for (String script : List.of("/format.js", "/work.js", "/dashboard.js")) {
            Reply reply = get(second.url(script));
            assertThat(reply.status()).as(script).isEqualTo(200);
            assertThat(reply.header("Content-Type")).as(script).contains("javascript").containsIgnoringCase("utf-8");
        }
        assertThat(get(second.url("/dashboard.css")).header("Content-Type")).contains("text/css")
                .containsIgnoringCase("utf-8");
    }

    @Test
    void statusOnAFollowerNamesTheLeaderAndEveryMember() {
        JsonNode status = get(second.url("/cluster/status")).json();

        assertThat(status.path("node_id").asText()).isEqualTo("n2");
        assertThat(status.path("group").asText()).isEqualTo(GROUP);
        assertThat(status.path("state").asText()).isEqualTo("follower");
        assertThat(status.path("is_leader").asBoolean()).isFalse();
        assertThat(status.path("leader_id").asText()).isEqualTo("n1");
        assertThat(status.path("leader_url").asText()).isEqualTo(first.url());
        assertThat(status.path("term").asLong()).isEqualTo(first.election().leadership().orElseThrow().term());
        assertThat(status.path("cluster_size").asInt()).isEqualTo(3);
        assertThat(status.path("cluster_ready").asBoolean()).isTrue();
        assertThat(status.path("backend").asText()).isEqualTo("memory");
        assertThat(status.path("api_url").asText()).isEqualTo(second.url());
        assertThat(status.path("uptime_seconds").asDouble()).isPositive();
        assertThat(status.path("problem").isNull()).isTrue();
        assertThat(status.path("timestamp").asText()).matches(TIMESTAMP);
        List<JsonNode> members = StreamSupport.stream(status.path("members").spliterator(), false).toList();
        assertThat(members).extracting(m -> m.path("node_id").asText()).containsExactly("n1", "n2", "n3");
        assertThat(members).extracting(m -> m.path("role").asText()).containsExactly("leader", "follower", "follower");
        assertThat(members).extracting(m -> m.path("api_url").asText())
                .containsExactly(first.url(), second.url(), third.url());
        assertThat(members).allSatisfy(member -> {
            assertThat(member.path("identifier").asText()).startsWith("api-n");
            assertThat(member.path("state").asText()).isEqualTo("active");
            assertThat(member.path("last_seen").asText()).matches(TIMESTAMP);
            assertThat(member.path("registered_at").asText()).matches(TIMESTAMP);
        });
    }

    @Test
    void statusOnTheLeaderSaysItLeads() {
        JsonNode status = get(first.url("/cluster/status")).json();

        assertThat(status.path("state").asText()).isEqualTo("leader");
        assertThat(status.path("is_leader").asBoolean()).isTrue();
        assertThat(status.path("leader_id").asText()).isEqualTo("n1");
        assertThat(status.path("leader_url").asText()).isEqualTo(first.url());
    }

    @Test
    void leaderEndpointNamesTheLeaderItsTermAndUrlOnEveryNode() {
        long term = first.election().leadership().orElseThrow().term();
        for (ApiNode node : List.of(first, second, third)) {
            Reply reply = get(node.url("/cluster/leader"));

            assertThat(reply.status()).as(node.id()).isEqualTo(200);
            assertThat(reply.header("Content-Type")).startsWith("application/json");
            assertThat(reply.json().path("leader_id").asText()).isEqualTo("n1");
            assertThat(reply.json().path("term").asLong()).isEqualTo(term);
            assertThat(reply.json().path("api_url").asText()).isEqualTo(first.url());
        }
    }

    @Test
    void healthHasExactlyTheSeedsFieldsAndIsHealthy() {
        Reply reply = get(third.url("/cluster/health"));

        assertThat(reply.status()).isEqualTo(200);
        JsonNode health = reply.json();
        assertThat(health.fieldNames()).toIterable().containsExactly("status", "clustering", "node_id", "state",
                "is_leader", "leader_id", "cluster_size", "cluster_ready", "timestamp", "version");
        assertThat(health.path("status").asText()).isEqualTo("healthy");
        assertThat(health.path("clustering").asText()).isEqualTo("enabled");
        assertThat(health.path("node_id").asText()).isEqualTo("n3");
        assertThat(health.path("state").asText()).isEqualTo("follower");
        assertThat(health.path("is_leader").asBoolean()).isFalse();
        assertThat(health.path("leader_id").asText()).isEqualTo("n1");
        assertThat(health.path("cluster_size").asInt()).isEqualTo(3);
        assertThat(health.path("cluster_ready").asBoolean()).isTrue();
        assertThat(health.path("timestamp").asText()).matches(TIMESTAMP);
        assertThat(health.path("version").asText()).isNotBlank().doesNotContain("${");
    }

    @Test
    void eventsComeFromTheStoresLogNewestFirst() {
        await().atMost(Duration.ofSeconds(5)).until(() -> get(second.url("/cluster/events")).json().path("events")
                .findValuesAsText("type").contains("node_joined"));

        JsonNode answer = get(second.url("/cluster/events?limit=3")).json();

        assertThat(answer.path("source").asText()).isEqualTo("store");
        JsonNode events = answer.path("events");
        assertThat(events.size()).isEqualTo(3);
        assertThat(events.get(0).path("id").asLong()).isGreaterThan(events.get(1).path("id").asLong());
        assertThat(events.get(1).path("id").asLong()).isGreaterThan(events.get(2).path("id").asLong());
        assertThat(events.get(0).fieldNames()).toIterable()
                .containsExactly("id", "node_id", "type", "data", "timestamp");
        assertThat(events.get(0).path("timestamp").asText()).matches(TIMESTAMP);
        JsonNode all = get(second.url("/cluster/events")).json().path("events");
        JsonNode elected = StreamSupport.stream(all.spliterator(), false)
                .filter(e -> e.path("type").asText().equals("leader_elected")).findFirst().orElseThrow();
        assertThat(elected.path("node_id").asText()).isEqualTo("n1");
        assertThat(elected.path("data").path("term").asText())
                .isEqualTo(Long.toString(first.election().leadership().orElseThrow().term()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "1001", "-5", "ten", "1.5", ""})
    void eventsLimitOutsideOneToThousandIsA400NamingLimit(String limit) {
        Reply reply = get(first.url("/cluster/events?limit=" + limit));

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.json().path("error").asText()).isEqualTo("bad_request");
        assertThat(reply.json().path("field").asText()).isEqualTo("limit");
        assertThat(reply.json().path("message").asText()).contains("limit");
    }

    @Test
    void metricsArePrometheusTextWithTheElectionAndHttpMeters() {
        // At least one renewal, however many the test order and the machine's speed allowed so far.
        Pattern renewals = Pattern.compile("baton_lease_renew_seconds_count\\{group=\"api\"} ([0-9.]+)");
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            Matcher count = renewals.matcher(get(first.url("/metrics")).body());
            return count.find() && Double.parseDouble(count.group(1)) >= 1;
        });
        get(second.url("/cluster/status"));

        Reply leader = get(first.url("/metrics"));
        Reply follower = get(second.url("/metrics"));

        assertThat(leader.status()).isEqualTo(200);
        assertThat(leader.header("Content-Type")).startsWith("text/plain");
        long term = first.election().leadership().orElseThrow().term();
        assertThat(leader.body())
                .contains("baton_is_leader{group=\"api\"} 1.0")
                .contains("baton_term{group=\"api\"} " + term + ".0")
                .contains("baton_leadership_changes_total{group=\"api\"} 1.0")
                .contains("baton_leaderless_seconds_total{group=\"api\"}")
                .contains("baton_store_call_seconds_bucket{group=\"api\",operation=\"acquire\",outcome=\"success\"")
                .contains("baton_store_call_seconds_count{group=\"api\",operation=\"renew\",outcome=\"success\"}")
                .contains("baton_store_errors_total{group=\"api\",operation=\"renew\"} 0.0")
                .contains("baton_lease_renew_seconds_bucket{group=\"api\",le=")
                .contains("baton_lease_margin_seconds_bucket{group=\"api\",le=")
                .contains("baton_members{group=\"api\",state=\"active\"} 3.0")
                .contains("baton_members{group=\"api\",state=\"unreachable\"} 0.0");
        assertThat(follower.body())
                .contains("baton_is_leader{group=\"api\"} 0.0")
                .contains("baton_term{group=\"api\"} " + term + ".0")
                .contains("http_server_requests_seconds_count{method=\"GET\",status=\"200\",uri=\"/cluster/status\"}");
    }

    @Test
    void aFollowerAnswersWritesWith503NamingTheLeader() {
        Reply reply = put(second.url("/work/items/on-a-follower"), ITEM, AUTH);

        assertThat(reply.status()).isEqualTo(503);
        assertThat(reply.header("X-Leader-Id")).isEqualTo("n1");
        assertThat(reply.header("X-Leader-Url")).isEqualTo(first.url());
        assertThat(reply.json().path("error").asText()).isEqualTo("not_leader");
        assertThat(reply.json().path("leader_id").asText()).isEqualTo("n1");
        assertThat(reply.json().path("leader_url").asText()).isEqualTo(first.url());
        assertThat(stored("on-a-follower")).isEmpty();
        assertThat(HttpCalls.delete(third.url("/work/items/x"), AUTH).status()).isEqualTo(503);
        assertThat(HttpCalls.post(third.url("/cluster/leader/release"), AUTH).status()).isEqualTo(503);
    }

    @Test
    void itemsAreCreatedReplacedReadEverywhereAndDeletedOnTheLeader() {
        long term = first.election().leadership().orElseThrow().term();

        Reply created = put(first.url("/work/items/crud-1"), ITEM, AUTH);
        Reply replaced = put(first.url("/work/items/crud-1"),
                "{\"rtspUrl\":\"rtsp://cam-8.local/s\",\"modelId\":7,\"modelName\":\"faces\",\"weight\":3}", AUTH);

        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        assertThat(created.json().path("id").asText()).isEqualTo("crud-1");
        assertThat(created.json().path("term").asLong()).isEqualTo(term);
        assertThat(created.json().path("written_by").asText()).isEqualTo("n1");
        assertThat(created.json().path("item").path("rtspUrl").asText()).isEqualTo("rtsp://cam-7.local/stream");
        assertThat(created.json().path("item").path("subscriptionIdentifier").asText()).isEqualTo("crud-1");
        assertThat(replaced.status()).isEqualTo(200);
        assertThat(replaced.json().path("item").path("weight").asInt()).isEqualTo(3);

        JsonNode one = get(third.url("/work/items/crud-1")).json();
        assertThat(one.path("item").path("modelName").asText()).isEqualTo("faces");
        assertThat(one.path("written_by").asText()).isEqualTo("n1");
        JsonNode list = get(second.url("/work/items")).json().path("items");
        assertThat(list.findValuesAsText("id")).contains("crud-1");
        JsonNode listed = StreamSupport.stream(list.spliterator(), false)
                .filter(item -> item.path("id").asText().equals("crud-1")).findFirst().orElseThrow();
        assertThat(listed.fieldNames()).toIterable().containsExactly("id", "item", "term", "written_by");

        Reply deleted = HttpCalls.delete(first.url("/work/items/crud-1"), AUTH);
        Reply deletedAgain = HttpCalls.delete(first.url("/work/items/crud-1"), AUTH);
        Reply gone = get(second.url("/work/items/crud-1"));

        assertThat(deleted.status()).isEqualTo(204);
        assertThat(deleted.body()).isEmpty();
        assertThat(deletedAgain.status()).isEqualTo(404);
        assertThat(deletedAgain.json().path("error").asText()).isEqualTo("not_found");
        assertThat(gone.status()).isEqualTo(404);
        assertThat(gone.json().path("message").asText()).contains("crud-1");
        assertThat(stored("crud-1")).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "display-1%3Bcamera-7 | display-1;camera-7",
        "display-2;camera-3   | display-2;camera-3",
        "a%2Fb                | a/b",
        "sp%20ace+plus        | sp ace+plus",
        "%E2%9C%93-ok         | \u2713-ok"})
    void theIdIsThePercentDecodedPathSegment(String inPath, String id) {
        Reply reply = put(first.url("/work/items/" + inPath), ITEM, AUTH);

        assertThat(reply.status()).as(reply.toString()).isEqualTo(201);
        assertThat(reply.json().path("id").asText()).isEqualTo(id);
        assertThat(stored(id)).isPresent();
        assertThat(get(second.url("/work/items/" + inPath)).json().path("id").asText()).isEqualTo(id);
        assertThat(HttpCalls.delete(first.url("/work/items/" + inPath), AUTH).status()).isEqualTo(204);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"modelId\":42,\"modelName\":\"plates\"}                                           | rtspUrl",
        "{\"rtspUrl\":\"http://cam/s\",\"modelId\":42,\"modelName\":\"plates\"}              | rtspUrl",
        "{\"rtspUrl\":\"rtsp://cam/s\",\"modelId\":\"42\",\"modelName\":\"plates\"}          | modelId",
        "{\"rtspUrl\":\"rtsp://cam/s\",\"modelId\":4.2,\"modelName\":\"plates\"}             | modelId",
        "{\"rtspUrl\":\"rtsp://cam/s\",\"modelId\":42}                                       | modelName",
        "{\"rtspUrl\":\"rtsp://cam/s\",\"modelId\":42,\"modelName\":\"p\",\"colour\":\"red\"} | colour",
        "{\"rtspUrl\":\"rtsp://cam/s\",\"modelId\":42,\"modelName\":\"p\",\"cropX1\":5}      | cropY1",
        "{\"rtspUrl\":\"rtsp://cam/s\",\"modelId\":42,\"modelName\":\"p\",\"weight\":0}      | weight",
        "{\"subscriptionIdentifier\":\"other\",\"rtspUrl\":\"rtsp://cam/s\",\"modelId\":1,\"modelName\":\"p\"} | subscriptionIdentifier"})
    void anInvalidItemIsA400NamingTheField(String body, String field) {
        Reply reply = put(first.url("/work/items/invalid"), body, AUTH);

        assertThat(reply.status()).as(reply.toString()).isEqualTo(400);
        assertThat(reply.json().path("error").asText()).isEqualTo("invalid_item");
        assertThat(reply.json().path("field").asText()).isEqualTo(field);
        assertThat(reply.json().path("message").asText()).contains(field);
        assertThat(stored("invalid")).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"rtspUrl\":", "[1,2]", "", "{} {}", "{\"rtspUrl\":\"a\",\"rtspUrl\":\"b\"}"})
    void malformedJsonIsA400(String body) {
        Reply reply = put(first.url("/work/items/malformed"), body, AUTH);

        assertThat(reply.status()).as(reply.toString()).isEqualTo(400);
        assertThat(reply.json().path("error").asText()).isEqualTo("malformed_json");
        assertThat(reply.json().path("message").asText()).isNotBlank();
    }

    @Test
    void aBodyOverOneMebibyteIsA413WithOrWithoutContentLength() {
        byte[] big = new byte[NodeApi.MAX_BODY_BYTES + 1];
        java.util.Arrays.fill(big, (byte) ' ');

        Reply declared = HttpCalls.send(HttpCalls.withHeaders(HttpRequest.newBuilder(
                URI.create(first.url("/work/items/big"))), AUTH).PUT(HttpRequest.BodyPublishers.ofByteArray(big)));
        Reply chunked = HttpCalls.send(HttpCalls.withHeaders(HttpRequest.newBuilder(
                URI.create(first.url("/work/items/big"))), AUTH)
                .PUT(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big))));

        assertThat(declared.status()).isEqualTo(413);
        assertThat(declared.json().path("error").asText()).isEqualTo("payload_too_large");
        assertThat(chunked.status()).isEqualTo(413);
        assertThat(chunked.json().path("error").asText()).isEqualTo("payload_too_large");
        assertThat(stored("big")).isEmpty();
    }

    @Test
    void writesNeedTheBearerTokenAndTheRefusalSaysNothingMore() {
        Reply none = put(first.url("/work/items/auth"), ITEM, "Content-Type", "application/json");
        Reply wrong = put(first.url("/work/items/auth"), ITEM, "Authorization", "Bearer " + TOKEN + "x");
        Reply basic = put(first.url("/work/items/auth"), ITEM, "Authorization", "Basic " + TOKEN);
        Reply onFollower = put(second.url("/work/items/auth"), ITEM);
        Reply release = HttpCalls.post(first.url("/cluster/leader/release"));
        Reply delete = HttpCalls.delete(first.url("/work/items/auth"), "Authorization", "Bearer");
        Reply drain = HttpCalls.post(first.url("/work/workers/127.0.0.1:9/drain"));
        Reply undrain = HttpCalls.delete(first.url("/work/workers/127.0.0.1:9/drain"), "Authorization",
                "Bearer " + TOKEN + "x");

        for (Reply reply : List.of(none, wrong, basic, onFollower, release, delete, drain, undrain)) {
            assertThat(reply.status()).as(reply.toString()).isEqualTo(401);
            assertThat(reply.body()).isEqualTo(none.body());
            assertThat(reply.header("WWW-Authenticate")).isEqualTo("Bearer");
            assertThat(reply.header("X-Leader-Id")).isNull();
        }
        assertThat(none.json().path("error").asText()).isEqualTo("unauthorized");
        assertThat(stored("auth")).isEmpty();
        assertThat(first.election().isLeader()).isTrue();
        assertThat(put(first.url("/work/items/auth"), ITEM, "Authorization", "bearer " + TOKEN).status())
                .isEqualTo(201);
        assertThat(get(second.url("/work/items/auth")).status()).isEqualTo(200);
    }

    @Test
    void unknownRoutesAndWrongMethodsAreJson() {
        Reply unknown = get(second.url("/no/such/thing"));
        Reply wrongMethod = HttpCalls.send(HttpRequest.newBuilder(URI.create(second.url("/cluster/status")))
                .method("PATCH", HttpRequest.BodyPublishers.noBody()));

        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.json().path("error").asText()).isEqualTo("not_found");
        assertThat(unknown.json().path("message").asText()).contains("/no/such/thing");
        assertThat(wrongMethod.status()).isEqualTo(405);
        assertThat(wrongMethod.json().path("error").asText()).isEqualTo("method_not_allowed");
        assertThat(wrongMethod.header("Allow")).contains("GET");
    }

    @Test
    void aRequestJettyCannotParseIsAnsweredInJson() throws IOException {
        URI base = URI.create(second.url());
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), base.getPort())) {
            socket.setSoTimeout(5_000);
            OutputStream out = socket.getOutputStream();
            out.write("GET /cluster/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String response = new String(in.readAllBytes(), StandardCharsets.UTF_8);

            assertThat(response).startsWith("HTTP/1.1 400");
            assertThat(response).containsIgnoringCase("Content-Type: application/json");
            assertThat(response).contains("\"error\":\"bad_request\"").doesNotContain("<html");
        }
    }

    @Test
    void theDashboardIsServedAtTheRoot() {
        Reply page = get(third.url("/"));

        assertThat(page.status()).isEqualTo(200);
        assertThat(page.header("Content-Type")).startsWith("text/html");
        assertThat(page.body()).containsIgnoringCase("<html");
    }

    private static Optional<FencedValue> stored(String id) {
        return store.maps().mapGet(GROUP, NodeApi.WORK_ITEMS_MAP, id).join();
    }
}

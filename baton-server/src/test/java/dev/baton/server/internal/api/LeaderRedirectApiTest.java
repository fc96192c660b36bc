package dev.baton.server.internal.api;

import static dev.baton.server.internal.api.ClusterApiTest.ITEM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.memory.InMemoryStore;
import dev.baton.http.LeaderGate;
import dev.baton.server.internal.api.HttpCalls.Reply;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code --leader-redirect}: a follower answers writes with a 307 to the same path and query on the leader. */
class LeaderRedirectApiTest {

    private final InMemoryStore store = new InMemoryStore();
    private ApiNode leader;
    private ApiNode follower;

    @AfterEach
    void stop() {
        if (follower != null) {
            follower.close();
        }
        if (leader != null) {
            leader.close();
        }
    }

    @Test
    void aFollowerRedirectsWritesToTheLeaderKeepingPathAndQuery() throws Exception {
        leader = ApiNode.start(store, "redirect", "leader");
        assertThat(leader.election().awaitElected(Duration.ofSeconds(10))).isTrue();
        follower = ApiNode.builder(store, "redirect", "follower").mode(LeaderGate.Mode.REDIRECT).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> follower.election().leader().isPresent());

        Reply put = HttpCalls.put(follower.url("/work/items/display-1%3Bcamera-7?dry=1&x=%2F"), ITEM);
        Reply release = HttpCalls.post(follower.url("/cluster/leader/release"));
        Reply read = HttpCalls.get(follower.url("/work/items"));

        assertThat(put.status()).isEqualTo(307);
        assertThat(put.header("Location")).isEqualTo(leader.url() + "/work/items/display-1%3Bcamera-7?dry=1&x=%2F");
        assertThat(put.header("X-Leader-Id")).isEqualTo("leader");
        assertThat(put.header("X-Leader-Url")).isEqualTo(leader.url());
        assertThat(put.json().path("error").asText()).isEqualTo("not_leader");
        assertThat(release.status()).isEqualTo(307);
        assertThat(release.header("Location")).isEqualTo(leader.url() + "/cluster/leader/release");
        assertThat(read.status()).isEqualTo(200);
        assertThat(store.maps().mapEntries("redirect", NodeApi.WORK_ITEMS_MAP).join()).isEmpty();

        Reply followed = HttpCalls.put(put.header("Location"), ITEM);
        assertThat(followed.status()).isEqualTo(201);
        assertThat(followed.json().path("id").asText()).isEqualTo("display-1;camera-7");
    }
}

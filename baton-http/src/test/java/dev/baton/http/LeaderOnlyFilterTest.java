package dev.baton.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.core.Election;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.servlet.FilterHolder;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link LeaderOnlyFilter} installed in a plain servlet container (an embedded Jetty), in front of a servlet. */
class LeaderOnlyFilterTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static GateCluster cluster;
    private final List<Server> servers = new ArrayList<>();

    /** The application's own servlet: it answers every method it is reached with. */
    private static final class OrdersServlet extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setContentType("text/plain");
            response.getWriter().write("served " + request.getMethod());
        }
    }

    @BeforeAll
    static void elect() throws Exception {
        cluster = new GateCluster();
    }

    @AfterAll
    static void closeCluster() {
        cluster.close();
    }

    @AfterEach
    void stopServers() throws Exception {
        for (Server server : servers) {
            server.stop();
        }
    }

    @Test
    void theLeadersServletServesWrites() throws Exception {
        String base = container(cluster.leader, LeaderGate.Mode.FAILOVER);

        HttpResponse<String> response = LeaderOnlyTest.send(base, "POST", "/orders/1");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("served POST");
    }

    @Test
    void aFollowerAnswers503WithTheLeaderAndTheServletNeverRuns() throws Exception {
        String base = container(cluster.follower, LeaderGate.Mode.FAILOVER);

        HttpResponse<String> response = LeaderOnlyTest.send(base, "PUT", "/orders/1");

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("X-Leader-Id")).hasValue("L");
        assertThat(response.headers().firstValue("X-Leader-Url")).hasValue(GateCluster.LEADER_URL);
        assertThat(JSON.readTree(response.body()).path("error").asText()).isEqualTo("not_leader");
        assertThat(response.body()).doesNotContain("served");
    }

    @Test
    void inRedirectModeAFollowerAnswers307() throws Exception {
        String base = container(cluster.follower, LeaderGate.Mode.REDIRECT);

        HttpResponse<String> response = LeaderOnlyTest.send(base, "POST", "/orders/display-1%3Bcamera-7?x=1");

        assertThat(response.statusCode()).isEqualTo(307);
        assertThat(response.headers().firstValue("Location"))
                .hasValue(GateCluster.LEADER_URL + "/orders/display-1%3Bcamera-7?x=1");
    }

    @Test
    void readsPassAndWithoutALeaderWritesAre503() throws Exception {
        String follower = container(cluster.follower, LeaderGate.Mode.FAILOVER);
        String leaderless = container(cluster.leaderless, LeaderGate.Mode.FAILOVER);

        assertThat(LeaderOnlyTest.send(follower, "GET", "/orders/1").body()).isEqualTo("served GET");
        HttpResponse<String> write = LeaderOnlyTest.send(leaderless, "DELETE", "/orders/1");
        assertThat(write.statusCode()).isEqualTo(503);
        assertThat(JSON.readTree(write.body()).path("error").asText()).isEqualTo("no_leader");
    }

    private String container(Election election, LeaderGate.Mode mode) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addFilter(new FilterHolder(new LeaderOnlyFilter(election, mode)), "/orders/*",
                EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(new OrdersServlet()), "/orders/*");
        server.setHandler(context);
        server.start();
        servers.add(server);
        return "http://127.0.0.1:" + connector.getLocalPort();
    }
}

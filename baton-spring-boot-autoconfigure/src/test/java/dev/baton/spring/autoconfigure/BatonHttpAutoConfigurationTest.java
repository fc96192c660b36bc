package dev.baton.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.NodeInfo;
import dev.baton.core.StoreElection;
import dev.baton.core.store.CoordinationStore;
import dev.baton.http.LeaderOnlyFilter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

class BatonHttpAutoConfigurationTest {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class, BatonHttpAutoConfiguration.class))
            .withPropertyValues("baton.backend=memory", "baton.group=orders");

    @Test
    void noPathsNoFilter() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(FilterRegistrationBean.class));
    }

    @Test
    void aFollowersWritesOnTheNamedPathsAreAnsweredWithTheLeader() {
        runner.withPropertyValues("baton.http.leader-only-paths=/orders/*").run(context -> {
            @SuppressWarnings("unchecked")
            FilterRegistrationBean<LeaderOnlyFilter> registration = context.getBean(FilterRegistrationBean.class);
            assertThat(registration.getUrlPatterns()).containsExactly("/orders/*");
            Election local = context.getBean(Election.class);
            await().atMost(Duration.ofSeconds(10)).until(local::isLeader);

            // The leader's writes pass.
            MockHttpServletResponse onLeader = new MockHttpServletResponse();
            MockFilterChain passed = new MockFilterChain();
            registration.getFilter().doFilter(new MockHttpServletRequest("POST", "/orders/7"), onLeader, passed);
            assertThat(passed.getRequest()).isNotNull();

            // Another node of the group takes over; this one is a follower now and refuses writes with 503.
            CoordinationStore store = context.getBean(CoordinationStore.class);
            try (StoreElection other = Baton.election(store).group("orders").node(NodeInfo.of("other", "other"))
                    .config(ElectionConfig.fast()).releaseOnShutdown(false).build()) {
                local.stepDown().join();
                other.start();
                await().atMost(Duration.ofSeconds(10)).until(other::isLeader);
                MockHttpServletResponse onFollower = new MockHttpServletResponse();
                MockFilterChain refused = new MockFilterChain();
                registration.getFilter().doFilter(new MockHttpServletRequest("POST", "/orders/8"), onFollower,
                        refused);
                assertThat(refused.getRequest()).isNull();
                assertThat(onFollower.getStatus()).isEqualTo(503);
                assertThat(onFollower.getHeader("X-Leader-Id")).isEqualTo("other");
            }
        });
    }

    @Test
    void anUnknownModeIsNamed() {
        runner.withPropertyValues("baton.http.leader-only-paths=/orders/*", "baton.http.mode=bounce")
                .run(context -> assertThat(context.getStartupFailure()).rootCause()
                        .hasMessage("baton.http.mode: unknown mode 'bounce' (expected failover or redirect)"));
    }
}

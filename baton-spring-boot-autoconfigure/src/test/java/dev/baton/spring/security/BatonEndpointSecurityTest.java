package dev.baton.spring.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.Election;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.actuate.autoconfigure.security.servlet.EndpointRequest;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The release operation of {@code /actuator/baton} in a web application with Spring Security, configured as
 * docs/spring-boot.md shows: anonymous callers and users without the operator role cannot take leadership away, an
 * operator can, and health stays open. A real server on a free loopback port, the starter's auto-configuration as an
 * application gets it.
 */
@SpringBootTest(classes = BatonEndpointSecurityTest.SecuredApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"baton.backend=memory", "baton.group=secured", "baton.profile=fast",
            "server.address=127.0.0.1", "management.endpoints.web.exposure.include=health,baton"})
class BatonEndpointSecurityTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @LocalServerPort
    int port;

    @Autowired
    Election election;

    @BeforeEach
    void leading() {
        await().atMost(Duration.ofSeconds(10)).until(election::isLeader);
    }

    @Test
    void anonymousCallersCannotReleaseLeadership() throws Exception {
        HttpResponse<String> response = post(null);

        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(election.isLeader()).isTrue();
    }

    @Test
    void aUserWithoutTheOperatorRoleCannotReleaseLeadership() throws Exception {
        HttpResponse<String> response = post("viewer:viewer-secret");

        assertThat(response.statusCode()).isEqualTo(403);
        assertThat(election.isLeader()).isTrue();
    }

    @Test
    void healthIsOpenAndAnOperatorReleasesLeadership() throws Exception {
        HttpResponse<String> health = HTTP.send(HttpRequest.newBuilder(url("/actuator/health")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(200);
        long term = election.leadership().orElseThrow().term();

        HttpResponse<String> released = post("ops:ops-secret");

        assertThat(released.statusCode()).as(released.body()).isEqualTo(200);
        assertThat(released.body()).contains("\"released\":true", "\"term\":" + term);
    }

    private HttpResponse<String> post(String credentials) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(url("/actuator/baton"))
                .POST(HttpRequest.BodyPublishers.noBody());
        if (credentials != null) {
            request.header("Authorization", "Basic " + Base64.getEncoder()
                    .encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI url(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    /** An application with the actuator security docs/spring-boot.md recommends (and no database). */
    @SpringBootApplication(exclude = DataSourceAutoConfiguration.class)
    static class SecuredApplication {

        @Bean
        SecurityFilterChain actuator(HttpSecurity http) throws Exception {
            return http.securityMatcher(EndpointRequest.toAnyEndpoint())
                    .authorizeHttpRequests(requests -> requests
                            .requestMatchers(EndpointRequest.to("health")).permitAll()
                            .requestMatchers(EndpointRequest.to("baton")).hasRole("OPERATOR")
                            .anyRequest().authenticated())
                    .httpBasic(Customizer.withDefaults())
                    .csrf(csrf -> csrf.ignoringRequestMatchers(EndpointRequest.toAnyEndpoint()))
                    .build();
        }

        @Bean
        InMemoryUserDetailsManager users() {
            return new InMemoryUserDetailsManager(
                    User.withUsername("ops").password("{noop}ops-secret").roles("OPERATOR").build(),
                    User.withUsername("viewer").password("{noop}viewer-secret").roles("VIEWER").build());
        }
    }
}

package dev.baton.http;

import dev.baton.core.Election;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Leader-only writes for any servlet application (Jakarta Servlet 5 or later: Jetty 11+, Tomcat 10+, Spring Boot 3):
 * the same decision as {@link LeaderOnly}, as a plain filter. Writes pass on the leader; on any other node they are
 * answered as {@link LeaderGate} decides and never reach the servlet. Reads always pass.
 *
 * <pre>{@code
 * // Spring Boot 3
 * @Bean
 * FilterRegistrationBean<LeaderOnlyFilter> leaderOnly(Election election) {
 *     var registration = new FilterRegistrationBean<>(new LeaderOnlyFilter(election, LeaderGate.Mode.FAILOVER));
 *     registration.addUrlPatterns("/orders/*");
 *     return registration;
 * }
 * }</pre>
 *
 * <p>The filter holds no resources: the election it asks belongs to the application, which starts and closes it.
 */
public final class LeaderOnlyFilter implements Filter {

    private final LeaderGate gate;

    /** A filter for {@code election}'s group, answering followers' writes in {@code mode}. */
    public LeaderOnlyFilter(Election election, LeaderGate.Mode mode) {
        this(new LeaderGate(election, mode));
    }

    /** A filter that asks {@code gate}. */
    public LeaderOnlyFilter(LeaderGate gate) {
        this.gate = Objects.requireNonNull(gate, "gate");
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (!(request instanceof HttpServletRequest http) || !(response instanceof HttpServletResponse out)
                || !LeaderGate.isWrite(http.getMethod())) {
            chain.doFilter(request, response);
            return;
        }
        String query = http.getQueryString();
        String pathAndQuery = query == null || query.isEmpty() ? http.getRequestURI()
                : http.getRequestURI() + "?" + query;
        LeaderGate.Verdict verdict = gate.check(pathAndQuery);
        if (verdict.passes()) {
            chain.doFilter(request, response);
            return;
        }
        out.setStatus(verdict.status());
        verdict.headers().forEach(out::setHeader);
        out.setContentType("application/json");
        out.setCharacterEncoding("UTF-8");
        byte[] body = verdict.body().getBytes(StandardCharsets.UTF_8);
        out.setContentLength(body.length);
        out.getOutputStream().write(body);
    }
}

package dev.baton.spring.autoconfigure;

import dev.baton.core.Election;
import dev.baton.http.LeaderGate;
import dev.baton.http.LeaderOnlyFilter;
import dev.baton.spring.BatonProperties;
import java.util.Locale;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * Leader-only HTTP writes on the paths {@code baton.http.leader-only-paths} names: baton-http's
 * {@link LeaderOnlyFilter} (and the {@link LeaderGate} decision behind it) registered with the servlet container. Writes
 * pass on the leader; a follower answers them with 503 and the leader's id and URL, or a 307 to the leader.
 */
@ConditionalOnBooleanProperty(name = "baton.enabled", matchIfMissing = true)
@AutoConfiguration(after = BatonAutoConfiguration.class)
@ConditionalOnClass(name = {"dev.baton.http.LeaderOnlyFilter", "jakarta.servlet.Filter"})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@Conditional(BackendConditions.OnLeaderOnlyPaths.class)
@ConditionalOnBean(Election.class)
public class BatonHttpAutoConfiguration {

    @Bean
    FilterRegistrationBean<LeaderOnlyFilter> batonLeaderOnlyFilter(Election election, BatonProperties properties) {
        LeaderGate.Mode mode;
        try {
            mode = LeaderGate.Mode.valueOf(properties.getHttp().getMode().strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException unknown) {
            throw new BatonConfigurationException("baton.http.mode: unknown mode '" + properties.getHttp().getMode()
                    + "' (expected failover or redirect)");
        }
        FilterRegistrationBean<LeaderOnlyFilter> registration =
                new FilterRegistrationBean<>(new LeaderOnlyFilter(election, mode));
        registration.setName("batonLeaderOnlyFilter");
        registration.setUrlPatterns(properties.getHttp().getLeaderOnlyPaths());
        return registration;
    }
}

package dev.baton.spring.autoconfigure;

import dev.baton.core.Election;
import dev.baton.spring.actuate.BatonEndpoint;
import dev.baton.spring.actuate.BatonHealthIndicator;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * With Spring Boot Actuator: the {@code baton} health contributor ({@code management.health.baton.enabled}) and the
 * {@code baton} endpoint (expose it with {@code management.endpoints.web.exposure.include=health,baton}).
 */
@ConditionalOnBooleanProperty(name = "baton.enabled", matchIfMissing = true)
@AutoConfiguration(after = BatonAutoConfiguration.class)
@ConditionalOnClass({HealthIndicator.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnBean(Election.class)
public class BatonActuatorAutoConfiguration {

    @Bean
    @ConditionalOnEnabledHealthIndicator("baton")
    @ConditionalOnMissingBean(name = "batonHealthIndicator")
    BatonHealthIndicator batonHealthIndicator(Election election) {
        return new BatonHealthIndicator(election);
    }

    @Bean
    @ConditionalOnAvailableEndpoint
    @ConditionalOnMissingBean
    BatonEndpoint batonEndpoint(Election election) {
        return new BatonEndpoint(election);
    }
}

package dev.baton.spring.autoconfigure;

import dev.baton.core.Election;
import dev.baton.core.Registration;
import dev.baton.micrometer.MicrometerElectionMetrics;
import dev.baton.spring.BatonProperties;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The election's meters ({@code baton.is.leader}, {@code baton.term}, {@code baton.leadership.changes},
 * {@code baton.leaderless}, {@code baton.lease.margin}, store-call timings; see {@code baton-micrometer}) on the
 * application's {@link MeterRegistry}, tagged with the group. Needs {@code baton-micrometer} and a registry (Spring
 * Boot Actuator provides one). An auto-configured store election also reports its store calls and renewal margins.
 */
@ConditionalOnBooleanProperty(name = "baton.enabled", matchIfMissing = true)
@AutoConfiguration(after = BatonAutoConfiguration.class, afterName = {
    "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration"})
@ConditionalOnClass({MicrometerElectionMetrics.class, MeterRegistry.class})
@ConditionalOnBean(MeterRegistry.class)
public class BatonMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    MicrometerElectionMetrics batonElectionMetrics(MeterRegistry registry, BatonProperties properties,
            Environment environment) {
        Tags tags;
        try {
            tags = Tags.of("group", ElectionSettings.group(properties, environment));
        } catch (BatonConfigurationException e) {
            tags = Tags.empty();   // the application built its own election and named no group here
        }
        return new MicrometerElectionMetrics(registry, tags);
    }

    @Bean
    @ConditionalOnBean(Election.class)
    MetricsBinding batonMetricsBinding(MicrometerElectionMetrics metrics, Election election) {
        return new MetricsBinding(metrics, election);
    }

    /** Binds the meters to the election's events for as long as the context lives. */
    static final class MetricsBinding implements InitializingBean, DisposableBean {
        private final MicrometerElectionMetrics metrics;
        private final Election election;
        private Registration registration;

        MetricsBinding(MicrometerElectionMetrics metrics, Election election) {
            this.metrics = metrics;
            this.election = election;
        }

        @Override
        public void afterPropertiesSet() {
            registration = metrics.bindTo(election);
        }

        @Override
        public void destroy() {
            registration.close();
        }
    }
}

package dev.baton.spring.autoconfigure;

import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.StoreElection;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.StoreException;
import dev.baton.spring.BatonProperties;
import dev.baton.spring.LeaderOnlyPostProcessor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * The election from {@code baton.*}: on a store backend a {@link CoordinationStore} bean and a {@link StoreElection}
 * on it, on {@code quorum} or {@code bully} an {@link Election} over its own peer transport
 * ({@link PeerBackendConfiguration}). Each backs off when the application defines its own bean of that type; an
 * application's own {@code CoordinationStore} gets the election built on it.
 *
 * <p>Around the election, whoever built it: its life cycle ({@link ElectionLifecycle}), leadership application
 * events, and the {@code @LeaderOnly} interceptor. Shutdown order: the election closes in the context's life-cycle
 * stop (a leader's work stops, then the lease is released), the store when the beans are destroyed, after the
 * election that depends on it.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "baton.enabled", matchIfMissing = true)
@EnableConfigurationProperties(BatonProperties.class)
@Import({BatonAutoConfiguration.StoreBackendConfiguration.class, PeerBackendConfiguration.class})
public class BatonAutoConfiguration {

    /** Memory, Redis, PostgreSQL: anything {@link Baton#connect(String)} opens. */
    @Configuration(proxyBeanMethods = false)
    @Conditional(BackendConditions.OnStore.class)
    static class StoreBackendConfiguration {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(CoordinationStore.class)
        CoordinationStore batonStore(BatonProperties properties) {
            String backend = ElectionSettings.backend(properties);
            try {
                return Baton.connect(backend);
            } catch (IllegalArgumentException | StoreException e) {
                throw new BatonConfigurationException("baton.backend: " + e.getMessage(), e);
            }
        }

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(Election.class)
        StoreElection batonElection(CoordinationStore store, BatonProperties properties, Environment environment,
                ObjectProvider<ElectionMetrics> metrics) {
            Baton.ElectionBuilder builder = Baton.election(store)
                    .group(ElectionSettings.group(properties, environment))
                    .node(ElectionSettings.node(properties, environment))
                    .config(ElectionSettings.electionConfig(properties))
                    .recordEvents(properties.isRecordEvents())
                    // The context closes it (ElectionLifecycle), in order: leader-only work, then the release.
                    .releaseOnShutdown(false);
            metrics.ifAvailable(builder::metrics);
            return builder.build();
        }
    }

    @Bean
    @ConditionalOnMissingBean
    ElectionLifecycle batonElectionLifecycle(Election election, BatonProperties properties) {
        return new ElectionLifecycle(election, properties.isAutoStartup());
    }

    @Bean
    LeadershipEventPublisher batonLeadershipEventPublisher(Election election, ApplicationEventPublisher publisher) {
        return new LeadershipEventPublisher(election, publisher);
    }

    /** Static: a post-processor is created before other beans; it asks for the election on the first call only. */
    @Bean
    @ConditionalOnMissingBean
    static LeaderOnlyPostProcessor batonLeaderOnlyPostProcessor(ObjectProvider<Election> election) {
        return new LeaderOnlyPostProcessor(election::getObject);
    }
}

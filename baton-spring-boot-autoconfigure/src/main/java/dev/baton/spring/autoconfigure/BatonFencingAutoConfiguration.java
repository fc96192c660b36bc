package dev.baton.spring.autoconfigure;

import dev.baton.core.StoreElection;
import dev.baton.core.fencing.FencedRegister;
import dev.baton.core.store.CoordinationStore;
import dev.baton.postgres.PostgresFencing;
import dev.baton.postgres.PostgresStore;
import dev.baton.spring.BatonProperties;
import dev.baton.spring.fencing.JdbcFence;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Fencing helpers as beans, so a leader's writes carry its term and a deposed leader's are refused:
 * <ul>
 *   <li>{@link FencedRegister} ({@code baton.fencing.register}) on a store backend: a register the store fences;</li>
 *   <li>{@link JdbcFence} when the application has a {@link DataSource}: a fence kept in its own database, for any
 *       backend;</li>
 *   <li>{@link PostgresFencing} when the backend is PostgreSQL and there is a {@code DataSource}: statements in one
 *       transaction with a check against the lease itself (the tables in the same database).</li>
 * </ul>
 */
@ConditionalOnBooleanProperty(name = "baton.enabled", matchIfMissing = true)
@AutoConfiguration(after = BatonAutoConfiguration.class,
        afterName = "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration")
public class BatonFencingAutoConfiguration {

    @Bean
    @ConditionalOnSingleCandidate(StoreElection.class)
    @ConditionalOnMissingBean(FencedRegister.class)
    FencedRegister batonFencedRegister(StoreElection election, BatonProperties properties) {
        return election.fencedRegister(properties.getFencing().getRegister());
    }

    @Bean
    @ConditionalOnSingleCandidate(DataSource.class)
    @ConditionalOnMissingBean(JdbcFence.class)
    JdbcFence batonJdbcFence(DataSource dataSource, BatonProperties properties) {
        try {
            return new JdbcFence(dataSource, properties.getFencing().getJdbcTable());
        } catch (IllegalArgumentException e) {
            throw new BatonConfigurationException("baton.fencing.jdbc-table: " + e.getMessage(), e);
        }
    }

    /** Only this nested class names {@code baton-postgres} types, so the rest loads without the module. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "dev.baton.postgres.PostgresFencing")
    @Conditional(BackendConditions.OnPostgres.class)
    @ConditionalOnBean(DataSource.class)
    static class PostgresFencingConfiguration {

        @Bean
        @ConditionalOnMissingBean(PostgresFencing.class)
        PostgresFencing batonPostgresFencing(CoordinationStore store, BatonProperties properties,
                Environment environment) {
            String group = ElectionSettings.group(properties, environment);
            return store instanceof PostgresStore postgres ? postgres.fencing(group) : PostgresFencing.forGroup(group);
        }
    }
}

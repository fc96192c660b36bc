package dev.baton.spring.autoconfigure;

import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.store.LeaderRecordStore;
import dev.baton.core.store.StoreException;
import dev.baton.peer.bully.Bully;
import dev.baton.peer.bully.BullyConfig;
import dev.baton.peer.bully.FileLeaderStore;
import dev.baton.peer.bully.StandaloneLeaderStore;
import dev.baton.peer.quorum.Quorum;
import dev.baton.peer.quorum.QuorumConfig;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.spring.BatonProperties;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * The serverless backends: {@code baton.backend=quorum} (the seed-node quorum protocol) and {@code bully} (the bully
 * election), each an {@link Election} over its own TCP transport on {@code baton.peer.listen}; the transport binds
 * when the bean is created, so a port in use fails the start. They need {@code baton-peer} on the class path. Timing
 * comes from {@code baton.profile}; the lease properties of the store backends do not apply.
 *
 * <p>Only the nested configurations name {@code baton-peer} types, so this class loads without the module.
 */
@Configuration(proxyBeanMethods = false)
@Import({PeerBackendConfiguration.QuorumConfiguration.class, PeerBackendConfiguration.BullyConfiguration.class})
class PeerBackendConfiguration {

    @Configuration(proxyBeanMethods = false)
    @Conditional(BackendConditions.OnQuorum.class)
    @ConditionalOnClass(name = "dev.baton.peer.quorum.Quorum")
    static class QuorumConfiguration {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(Election.class)
        Election batonElection(BatonProperties properties, Environment environment) {
            BatonProperties.Quorum quorum = properties.getQuorum();
            if (quorum.getSeeds().isEmpty()) {
                throw new BatonConfigurationException("baton.backend=quorum needs baton.quorum.seeds: the seed nodes, "
                        + "HOST:PORT each, the same list on every node");
            }
            if (quorum.getClusterSize() == null) {
                throw new BatonConfigurationException("baton.backend=quorum needs baton.quorum.cluster-size: the "
                        + "number of nodes in the cluster");
            }
            List<PeerAddress> seeds = new ArrayList<>();
            for (String seed : quorum.getSeeds()) {
                seeds.add(PeerSettings.address("baton.quorum.seeds", seed));
            }
            QuorumConfig config;
            try {
                config = QuorumConfig.profile(ElectionSettings.profile(properties))
                        .clusterSize(quorum.getClusterSize()).seeds(seeds).build();
            } catch (IllegalArgumentException e) {
                throw new BatonConfigurationException("baton.quorum: " + e.getMessage(), e);
            }
            Quorum.Builder builder = Quorum.tcp(PeerSettings.listen(properties))
                    .group(ElectionSettings.group(properties, environment))
                    .config(config)
                    .node(ElectionSettings.node(properties, environment))
                    .releaseOnShutdown(false);
            PeerSettings.secret(properties).ifPresent(builder::sharedSecret);
            if (quorum.getDataDir() != null && !quorum.getDataDir().isBlank()) {
                builder.dataDir(Path.of(quorum.getDataDir().strip()));
            }
            try {
                return builder.build();
            } catch (IllegalArgumentException | IllegalStateException e) {
                throw new BatonConfigurationException("baton.backend=quorum: " + e.getMessage(), e);
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Conditional(BackendConditions.OnBully.class)
    @ConditionalOnClass(name = "dev.baton.peer.bully.Bully")
    static class BullyConfiguration {

        /** Closed after the election, which depends on it. */
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(LeaderRecordStore.class)
        LeaderRecordStore batonLeaderStore(BatonProperties properties) {
            String spec = properties.getBully().getLeaderStore();
            if (spec == null || spec.isBlank()) {
                throw new BatonConfigurationException("baton.backend=bully needs baton.bully.leader-store: standalone,"
                        + " file:PATH, or a redis://, redis-sentinel:// or postgresql:// URI");
            }
            String value = spec.strip();
            String lower = value.toLowerCase(Locale.ROOT);
            try {
                if (lower.equals("standalone")) {
                    return new StandaloneLeaderStore();
                }
                if (lower.startsWith("file:")) {
                    return new FileLeaderStore(Path.of(value.substring("file:".length())).toAbsolutePath());
                }
                if (lower.equals("memory") || !Baton.connects(value)) {
                    throw new BatonConfigurationException("baton.bully.leader-store: unsupported leader store '"
                            + value.replaceAll("(?<=://)[^@/]*@", "***@") + "' (expected standalone, file:PATH, or a "
                            + "redis://, redis-sentinel:// or postgresql:// URI with its module on the class path)");
                }
                return Baton.connect(value).leaderRecords();
            } catch (IllegalArgumentException | StoreException e) {
                throw new BatonConfigurationException("baton.bully.leader-store: " + e.getMessage(), e);
            }
        }

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(Election.class)
        Election batonElection(BatonProperties properties, Environment environment, LeaderRecordStore leaderStore) {
            BullyConfig config;
            try {
                config = BullyConfig.profile(ElectionSettings.profile(properties)).build();
            } catch (IllegalArgumentException e) {
                throw new BatonConfigurationException("baton.profile: " + e.getMessage(), e);
            }
            Bully.Builder builder = Bully.tcp(PeerSettings.listen(properties))
                    .group(ElectionSettings.group(properties, environment))
                    .config(config)
                    .leaderStore(leaderStore)
                    .node(ElectionSettings.node(properties, environment))
                    .releaseOnShutdown(false);
            PeerSettings.secret(properties).ifPresent(builder::sharedSecret);
            try {
                return builder.build();
            } catch (IllegalArgumentException | IllegalStateException e) {
                throw new BatonConfigurationException("baton.backend=bully: " + e.getMessage(), e);
            }
        }
    }
}

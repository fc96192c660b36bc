package dev.baton.spring.autoconfigure;

import dev.baton.core.ElectionConfig;
import dev.baton.core.NodeInfo;
import dev.baton.spring.BatonProperties;
import java.util.Locale;
import java.util.function.Consumer;
import org.springframework.core.env.Environment;

/** The {@code baton.*} properties turned into what the builders take, each checked with a message naming it. */
final class ElectionSettings {

    private ElectionSettings() {
    }

    /** {@code baton.backend}, stripped; required. */
    static String backend(BatonProperties properties) {
        String backend = properties.getBackend();
        if (backend == null || backend.isBlank()) {
            throw new BatonConfigurationException("baton.backend is not set: name where the leader is elected, e.g. "
                    + "baton.backend=redis://127.0.0.1:6379 (or memory, redis-sentinel://..., postgresql://..., "
                    + "quorum, bully)");
        }
        return backend.strip();
    }

    /** Whether {@code baton.backend} names {@code kind} ({@code quorum} also under its old name {@code peer}). */
    static boolean names(String backend, String kind) {
        String value = backend == null ? "" : backend.strip().toLowerCase(Locale.ROOT);
        return value.equals(kind) || (kind.equals("quorum") && value.equals("peer"));
    }

    /** {@code baton.group}, else {@code spring.application.name}. */
    static String group(BatonProperties properties, Environment environment) {
        String group = properties.getGroup();
        if (group == null || group.isBlank()) {
            group = environment.getProperty("spring.application.name");
        }
        if (group == null || group.isBlank()) {
            throw new BatonConfigurationException("baton.group is not set (nor spring.application.name): name the "
                    + "group to elect a leader for, e.g. baton.group=orders-scheduler");
        }
        return group.strip();
    }

    /** This node as the registry shows it; on the serverless backends the id is replaced by the peer address. */
    static NodeInfo node(BatonProperties properties, Environment environment) {
        BatonProperties.Node node = properties.getNode();
        String identifier = node.getIdentifier();
        if (identifier == null || identifier.isBlank()) {
            identifier = environment.getProperty("spring.application.name", "baton");
        }
        try {
            NodeInfo self = node.getId() == null || node.getId().isBlank()
                    ? NodeInfo.create(identifier) : NodeInfo.of(node.getId().strip(), identifier);
            if (node.getApiAddress() != null && !node.getApiAddress().isBlank()) {
                self = self.withApiAddress(node.getApiAddress().strip());
            }
            return self.withMetadata(node.getMetadata());
        } catch (IllegalArgumentException e) {
            throw new BatonConfigurationException("baton.node: " + e.getMessage(), e);
        }
    }

    /** The lease election's timing: {@code baton.profile}, with each timing property set overriding its value. */
    static ElectionConfig electionConfig(BatonProperties p) {
        ElectionConfig.Builder builder;
        try {
            builder = ElectionConfig.profile(profile(p));
        } catch (IllegalArgumentException e) {
            throw new BatonConfigurationException("baton.profile: " + e.getMessage(), e);
        }
        set(p.getLeaseTtl(), builder::leaseTtl);
        set(p.getRenewInterval(), builder::renewInterval);
        set(p.getCheckInterval(), builder::checkInterval);
        set(p.getStoreTimeout(), builder::storeTimeout);
        set(p.getRetryInterval(), builder::retryInterval);
        set(p.getSafetyMargin(), builder::safetyMargin);
        set(p.getMaxClockDrift(), builder::maxClockDrift);
        set(p.getProcessTtl(), builder::processTtl);
        set(p.getProcessHeartbeatInterval(), builder::processHeartbeatInterval);
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw new BatonConfigurationException("baton timing: " + e.getMessage()
                    + " (the properties are baton.lease-ttl, baton.renew-interval, ...)", e);
        }
    }

    /** {@code baton.profile}, lower case. */
    static String profile(BatonProperties p) {
        return p.getProfile() == null ? "default" : p.getProfile().strip().toLowerCase(Locale.ROOT);
    }

    private static <T> void set(T value, Consumer<T> setter) {
        if (value != null) {
            setter.accept(value);
        }
    }
}

package dev.baton.server;

import dev.baton.core.Election;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.NodeInfo;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.LeaderRecordStore;
import dev.baton.core.time.Clock;
import dev.baton.peer.bully.Bully;
import dev.baton.peer.bully.BullyElection;
import dev.baton.peer.bully.BullyMessage;
import dev.baton.peer.transport.NettyTransport;
import dev.baton.peer.transport.Transport;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.Optional;
import java.util.Random;

/**
 * The {@code bully} backend: seed 004's bully protocol ({@link BullyElection}) over its own {@link NettyTransport},
 * with the group's leader record in a {@link LeaderRecordStore} ({@code --leader-store}). The node's id is its
 * {@code --listen} address.
 *
 * <p>Like {@code peer}, it offers no shared store to the node: a Redis or PostgreSQL leader store holds the leader
 * record only, and its fenced registers know nothing of bully terms. The transport binds in {@link #election}; the
 * transport and then the leader store close in {@link #close()}, after the election has closed.
 */
final class BullyBackend implements NodeBackend {

    private static final Duration MAX_CALL_TIMEOUT = Duration.ofSeconds(2);

    private final String group;
    private final BackendSpec.Bully spec;
    private final LeaderRecordStore leaderStore;
    private final NettyTransport<BullyMessage> transport;
    /**
     * What the protocol sends through: the Netty transport, or with {@code --chaos-hooks} the harness's wrappers (a
     * partition, then duplicated, reordered or delayed messages).
     */
    private final Transport<BullyMessage> protocolTransport;
    private final PartitionableTransport<BullyMessage> partitionable;
    private final MessageChaosTransport<BullyMessage> messageChaos;

    private BullyBackend(String group, BackendSpec.Bully spec, LeaderRecordStore leaderStore,
            NettyTransport<BullyMessage> transport, boolean chaosHooks) {
        this.group = group;
        this.spec = spec;
        this.leaderStore = leaderStore;
        this.transport = transport;
        this.partitionable = chaosHooks ? new PartitionableTransport<>(transport) : null;
        this.messageChaos = chaosHooks ? new MessageChaosTransport<>(partitionable, new Random()) : null;
        this.protocolTransport = chaosHooks ? messageChaos : transport;
    }

    /**
     * Opens the leader store and prepares the transport (no socket yet); with {@code partitionable}
     * ({@code --chaos-hooks}) the protocol talks through a {@link PartitionableTransport} and a
     * {@link MessageChaosTransport}, which {@link #partitions()} and {@link #messageChaos()} expose.
     *
     * @throws CliError (usage) if the leader store cannot be opened or the group cannot be a cluster name
     */
    static BullyBackend open(String group, BackendSpec.Bully spec, boolean partitionable) {
        NettyTransport.Builder<BullyMessage> builder = NettyTransport.builder(Bully.codec())
                .listen(spec.listen())
                .clusterName(group);
        spec.secret().ifPresent(builder::sharedSecret);
        NettyTransport<BullyMessage> transport;
        try {
            transport = builder.build();
        } catch (IllegalArgumentException e) {
            throw CliError.usage("--group cannot name a peer cluster: " + e.getMessage(), e);
        }
        return new BullyBackend(group, spec, LeaderStores.open(spec.leaderStore(), group), transport,
                partitionable);
    }

    @Override
    public Election election(NodeInfo self, ElectionMetrics metrics, Clock clock) {
        BullyElection election = Bully.election(protocolTransport)
                .group(group)
                .config(spec.config())
                .leaderStore(leaderStore)
                .node(self)
                .clock(clock)
                .metrics(metrics)
                .releaseOnShutdown(false)   // RunningNode's own hook closes the election after the API and work
                .build();
        try {
            transport.start();
        } catch (IllegalStateException e) {
            election.close();
            throw CliError.usage("--listen: " + e.getMessage(), e);
        }
        return election;
    }

    @Override
    public Optional<CoordinationStore> store() {
        return Optional.empty();
    }

    @Override
    public String describe() {
        return "bully " + spec.listen().format() + " (leader store " + leaderStore.describe() + ")";
    }

    @Override
    public Duration callTimeout() {
        Duration timeout = spec.config().electionTimeout();
        return timeout.compareTo(MAX_CALL_TIMEOUT) < 0 ? timeout : MAX_CALL_TIMEOUT;
    }

    /** The transport's counters, as on {@code peer} ({@code baton_peer_*}). */
    @Override
    public void bindMetrics(MeterRegistry registry, Tags tags) {
        PeerTransportMetrics.bind(registry, tags, protocolTransport);
    }

    @Override
    public Optional<Partitions> partitions() {
        return Optional.ofNullable(partitionable);
    }

    @Override
    public Optional<MessageChaos> messageChaos() {
        return Optional.ofNullable(messageChaos);
    }

    @Override
    public void close() {
        if (messageChaos != null) {
            messageChaos.close(); // ends its timer, then closes the transport under it
        } else {
            transport.close();
        }
        leaderStore.close();
    }
}

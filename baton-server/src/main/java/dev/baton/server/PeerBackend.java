package dev.baton.server;

import dev.baton.core.Election;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.NodeInfo;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.time.Clock;
import dev.baton.peer.quorum.FileDurableState;
import dev.baton.peer.quorum.Quorum;
import dev.baton.peer.quorum.QuorumElection;
import dev.baton.peer.quorum.QuorumMessage;
import dev.baton.peer.transport.NettyTransport;
import dev.baton.peer.transport.Transport;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.Optional;
import java.util.Random;

/**
 * The {@code quorum} backend (old name {@code peer}): seed 003's quorum protocol ({@link QuorumElection}) over its
 * own {@link NettyTransport}, no store. The node's id is its {@code --listen} address, exactly as the protocol names
 * it.
 *
 * <p>The backend owns the transport rather than letting {@link Quorum#tcp} own it, so that its counters (messages,
 * drops, connections refused for bad input) can be served on {@code /metrics}. The transport binds in
 * {@link #election}, after the election has set its message handler; it closes in {@link #close()}, after the
 * election has closed and sent its hand-over or leave message.
 */
final class PeerBackend implements NodeBackend {

    /** The longest an HTTP request waits for the state machine's status snapshot (it is local; this is a guard). */
    private static final Duration MAX_CALL_TIMEOUT = Duration.ofSeconds(2);

    private final String group;
    private final BackendSpec.Peer spec;
    private final NettyTransport<QuorumMessage> transport;
    /**
     * What the protocol sends through: the Netty transport, or with {@code --chaos-hooks} the harness's wrappers (a
     * partition, then duplicated, reordered or delayed messages).
     */
    private final Transport<QuorumMessage> protocolTransport;
    private final PartitionableTransport<QuorumMessage> partitionable;
    private final MessageChaosTransport<QuorumMessage> messageChaos;
    private final ChaosVoteLog voteLog;

    private PeerBackend(String group, BackendSpec.Peer spec, NettyTransport<QuorumMessage> transport,
            boolean chaosHooks) {
        this.group = group;
        this.spec = spec;
        this.transport = transport;
        this.partitionable = chaosHooks ? new PartitionableTransport<>(transport) : null;
        this.messageChaos = chaosHooks ? new MessageChaosTransport<>(partitionable, new Random()) : null;
        this.protocolTransport = chaosHooks ? messageChaos : transport;
        this.voteLog = chaosHooks ? spec.dataDir().map(dir -> new ChaosVoteLog(new FileDurableState(dir)))
                .orElse(null) : null;
    }

    /**
     * Prepares the transport (no socket yet); with {@code partitionable} ({@code --chaos-hooks}) the protocol talks
     * through a {@link PartitionableTransport} and a {@link MessageChaosTransport}, and keeps its votes in a
     * {@link ChaosVoteLog}, which {@link #partitions()}, {@link #messageChaos()} and {@link #voteLogFaults()} expose.
     *
     * @throws CliError (usage) if the group cannot be a cluster name
     */
    static PeerBackend open(String group, BackendSpec.Peer spec, boolean partitionable) {
        NettyTransport.Builder<QuorumMessage> builder = NettyTransport.builder(Quorum.codec())
                .listen(spec.listen())
                .clusterName(group);
        spec.secret().ifPresent(builder::sharedSecret);
        try {
            return new PeerBackend(group, spec, builder.build(), partitionable);
        } catch (IllegalArgumentException e) {
            throw CliError.usage("--group cannot name a quorum cluster: " + e.getMessage(), e);
        }
    }

    @Override
    public Election election(NodeInfo self, ElectionMetrics metrics, Clock clock) {
        Quorum.Builder builder = Quorum.election(protocolTransport)
                .group(group)
                .config(spec.config())
                .node(self)
                .clock(clock)
                .metrics(metrics)
                .releaseOnShutdown(false);   // RunningNode's own hook closes the election after the API and work
        if (voteLog != null) {
            builder.durableState(voteLog);
        } else {
            spec.dataDir().ifPresent(builder::dataDir);
        }
        QuorumElection election;
        try {
            election = builder.build();
        } catch (RuntimeException e) {
            // The state file is the only thing read here: missing permissions, or damaged.
            throw CliError.usage("--data-dir: " + BatonCli.oneLine(messageOf(e)), e);
        }
        try {
            transport.start();
        } catch (IllegalStateException e) {
            election.close();
            throw CliError.usage("--listen: " + e.getMessage(), e);
        }
        return election;
    }

    private static String messageOf(Throwable e) {
        String message = e.getMessage();
        Throwable cause = e.getCause();
        if (cause != null && cause.getMessage() != null && (message == null || !message.contains(cause.getMessage()))) {
            message = (message == null ? "" : message + ": ") + cause.getMessage();
        }
        return message == null ? e.getClass().getSimpleName() : message;
    }

    @Override
    public Optional<CoordinationStore> store() {
        return Optional.empty();
    }

    @Override
    public String describe() {
        return spec.label() + " " + spec.listen().format() + " (cluster of " + spec.config().clusterSize() + ")";
    }

    @Override
    public Duration callTimeout() {
        Duration timeout = spec.config().heartbeatTimeout();
        return timeout.compareTo(MAX_CALL_TIMEOUT) < 0 ? timeout : MAX_CALL_TIMEOUT;
    }

    /** The transport's counters ({@link PeerTransportMetrics}). */
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
    public Optional<VoteLogFaults> voteLogFaults() {
        return Optional.ofNullable(voteLog);
    }

    @Override
    public void close() {
        if (messageChaos != null) {
            messageChaos.close(); // ends its timer, then closes the transport under it
        } else {
            transport.close();
        }
    }
}

package dev.baton.server;

import dev.baton.core.Election;
import dev.baton.core.NodeInfo;
import dev.baton.peer.replica.ReplicaGroup;
import dev.baton.peer.replica.ReplicaMessage;
import dev.baton.peer.replica.ReplicatedWorkStore;
import dev.baton.peer.transport.NettyTransport;
import dev.baton.peer.transport.PeerAddress;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work cluster's maps and bus on a serverless backend ({@code --backend quorum|peer|bully} with
 * {@code --workers}): a {@link ReplicatedWorkStore} that the group's leader replicates to every node, over a TCP
 * transport of its own. It listens on the {@code --listen} host on a free port, with the same cluster name (the group)
 * and shared secret as the protocol's transport, and the node advertises that address in its metadata
 * ({@link ReplicaGroup#ADDRESS_KEY}) so the others find it through the election's membership.
 *
 * <p>Life cycle, driven by {@code RunningNode}: {@link #open} before the election is built (the address goes into the
 * node's metadata), {@link #attach} once it is built, {@link #close()} after the work cluster and the election
 * closed.
 */
final class ServerlessWorkStore implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ServerlessWorkStore.class);
    /** A free port can be taken by someone else between finding it and binding it: try a few. */
    private static final int BIND_ATTEMPTS = 5;
    /** A new leader pushes the whole state in one message: the transport's largest frame, 64 MiB. */
    static final int MAX_FRAME_BYTES = 64 << 20;
    /** The least time an HTTP API call on a node with replicated work items may take. */
    static final Duration MIN_CALL_TIMEOUT = Duration.ofSeconds(2);

    private final String group;
    private final int clusterSize;
    private final NettyTransport<ReplicaMessage> transport;
    private ReplicatedWorkStore store;

    private ServerlessWorkStore(String group, int clusterSize, NettyTransport<ReplicaMessage> transport) {
        this.group = group;
        this.clusterSize = clusterSize;
        this.transport = transport;
    }

    /**
     * Binds the store's transport for a serverless {@code backend}; empty for a store backend (its store holds the
     * work cluster's maps).
     *
     * @throws CliError (usage) if no port on the {@code --listen} host can be bound
     */
    static Optional<ServerlessWorkStore> open(String group, BackendSpec backend) {
        PeerAddress listen;
        Optional<byte[]> secret;
        int clusterSize;
        if (backend instanceof BackendSpec.Peer peer) {
            listen = peer.listen();
            secret = peer.secret();
            clusterSize = peer.config().clusterSize();
        } else if (backend instanceof BackendSpec.Bully bully) {
            listen = bully.listen();
            secret = bully.secret();
            clusterSize = 0;
        } else {
            return Optional.empty();
        }
        IllegalStateException last = null;
        for (int attempt = 0; attempt < BIND_ATTEMPTS; attempt++) {
            NettyTransport.Builder<ReplicaMessage> builder = NettyTransport.builder(ReplicatedWorkStore.codec())
                    .listen(listen.host(), freePort(listen.host()))
                    .clusterName(group)
                    .maxFrameSize(MAX_FRAME_BYTES);
            secret.ifPresent(builder::sharedSecret);
            NettyTransport<ReplicaMessage> transport = builder.build();
            try {
                transport.start();
                log.info("The work cluster's replicated maps listen on {}", transport.local());
                return Optional.of(new ServerlessWorkStore(group, clusterSize, transport));
            } catch (IllegalStateException e) {
                transport.close();
                last = e;
            }
        }
        throw CliError.usage("--workers: cannot listen for the replicated work items on " + listen.host() + ": "
                + last.getMessage(), last);
    }

    private static int freePort(String host) {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(host))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw CliError.usage("--workers: cannot listen for the replicated work items on " + host + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * The bound on one HTTP API call on this node: a work item write waits for a majority of the replicas (and a new
     * leader's catch-up), which can take longer than the protocol's own short timeout on a busy machine, so at least
     * {@link #MIN_CALL_TIMEOUT}.
     */
    Duration callTimeout(Duration backends) {
        return backends.compareTo(MIN_CALL_TIMEOUT) > 0 ? backends : MIN_CALL_TIMEOUT;
    }

    /** Where the store listens. */
    PeerAddress address() {
        return transport.local();
    }

    /** {@code self} with this store's address in its metadata, for the election to tell the group. */
    NodeInfo advertise(NodeInfo self) {
        return self.withMetadata(ReplicaGroup.advertise(self.metadata(), transport.local()));
    }

    /** Starts the store on {@code election}, just built; returns it. Call once. */
    ReplicatedWorkStore attach(Election election) {
        store = ReplicatedWorkStore.builder(group, ReplicaGroup.of(election, clusterSize), transport).build();
        store.start();
        return store;
    }

    /**
     * Completes with a term once this node's replica holds the items again (see
     * {@link ReplicatedWorkStore#holdingState()}); call after {@link #attach}.
     */
    CompletableFuture<Long> holdingState() {
        return store.holdingState();
    }

    /** Stops the store and closes its transport. Idempotent. */
    @Override
    public void close() {
        if (store != null) {
            store.close();
        }
        transport.close();
    }
}

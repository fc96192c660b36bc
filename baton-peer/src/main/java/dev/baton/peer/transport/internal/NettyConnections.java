package dev.baton.peer.transport.internal;

import dev.baton.core.time.Clock;
import dev.baton.peer.transport.DropReason;
import dev.baton.peer.transport.MalformedMessageException;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.internal.Connection.Phase;
import dev.baton.peer.transport.internal.Handshake.CloseNotice;
import dev.baton.peer.transport.internal.Handshake.PassiveGreet;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TCP side of {@code NettyTransport}: listens, dials, runs the handshake on every connection, keeps one
 * connection per peer, and moves encoded messages. It knows nothing of the protocol's message type.
 *
 * <p><b>Handshake</b> (seed 003, "Node Handshake Conflict"): the side that connects sends an active greet; the side
 * that accepts answers with a passive greet. With a shared secret, a challenge and a response come between the two,
 * and the acceptor decides nothing before the connector has proved the secret. A connection is mapped to a peer only
 * when its greet arrives, and DATA flows only on a connection both sides have mapped.
 *
 * <p><b>Duplicates.</b> When two nodes dial each other at once, the connection opened by the smaller address is kept,
 * on both sides. The acceptor decides, when the connector's greet arrives, and says so in its passive greet
 * ({@code accepted}): it refuses the connection if it is itself the smaller address and already has its own connection
 * to that peer (connecting or established), and otherwise accepts it and closes any connection of its own. A node sends
 * DATA only after the connection is accepted, and keeps its messages queued per peer (not per connection), so a
 * refused or abandoned connection loses nothing: the messages go out on the one that is kept. A greet with another
 * incarnation than the connection in use means the peer restarted: the new connection replaces the old one.
 *
 * <p>Each connection's frames are handled by its {@link ConnectionHandler}; the decisions that involve several
 * connections (which one a peer's messages use, which one survives a duplicate) are made here.
 *
 * <p><b>Threads.</b> Netty event loops run the handlers; one lock guards the peer table and every connection's phase.
 * Nothing blocks under the lock: writes and closes are asynchronous.
 */
public final class NettyConnections {

    private static final Logger log = LoggerFactory.getLogger("dev.baton.peer.transport.NettyTransport");
    /** How long a close notice may take to be written before the connection is closed without it. */
    private static final Duration CLOSE_GRACE = Duration.ofSeconds(1);

    /** Receives the payload of each DATA frame; a codec refusal closes the connection as malformed. */
    @FunctionalInterface
    public interface DataSink {
        void deliver(PeerAddress from, byte[] payload) throws MalformedMessageException;
    }

    /** Everything the connections need from the transport's configuration; validated by the builder. */
    public record Settings(
            String bindHost,
            int bindPort,
            PeerAddress advertise,
            String cluster,
            int maxFrameSize,
            byte[] sharedSecret,
            Duration connectTimeout,
            Duration handshakeTimeout,
            Duration frameTimeout,
            int maxPendingHandshakes,
            int sendQueueBound,
            int workerThreads,
            Clock clock) {
    }

    final Settings settings;
    final TransportCounters counters;
    final DataSink sink;
    final SharedSecretAuth auth;
    final long incarnation;
    final RateLimitedLog warnings;

    final Object lock = new Object();
    private final Map<PeerAddress, PeerLink> links = new HashMap<>();
    private final Set<Channel> channels = ConcurrentHashMap.newKeySet();
    boolean closed;
    /** Inbound connections accepted whose handshake has not completed; at most the cap. Guarded by the lock. */
    private int pendingInbound;

    private EventLoopGroup group;
    private Channel server;
    private Bootstrap bootstrap;
    PeerAddress local;

    public NettyConnections(Settings settings, TransportCounters counters, DataSink sink) {
        this.settings = settings;
        this.counters = counters;
        this.sink = sink;
        this.auth = settings.sharedSecret() == null ? null : new SharedSecretAuth(settings.sharedSecret());
        this.incarnation = new SecureRandom().nextLong();
        this.warnings = new RateLimitedLog(log, settings.clock(), Duration.ofSeconds(10), 5);
    }

    /**
     * Starts the event loops and listens; returns this node's address.
     *
     * @throws IllegalStateException if the address cannot be bound
     */
    public PeerAddress start() {
        group = new NioEventLoopGroup(settings.workerThreads(), new DefaultThreadFactory("baton-peer", true));
        WriteBufferWaterMark waterMark = new WriteBufferWaterMark(
                Math.max(64 * 1024, settings.maxFrameSize()), Math.max(1 << 20, 4 * settings.maxFrameSize()));
        ServerBootstrap serverBootstrap = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        setUp(channel, new Connection(false, null));
                    }
                });
        ChannelFuture bound = serverBootstrap.bind(settings.bindHost(), settings.bindPort()).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
            Throwable cause = bound.cause();
            throw new IllegalStateException("cannot listen on " + settings.bindHost() + ":" + settings.bindPort() + ": "
                    + (cause == null ? "unknown error" : cause.getMessage()), cause);
        }
        server = bound.channel();
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        local = settings.advertise() != null ? settings.advertise() : new PeerAddress(settings.bindHost(), port);
        bootstrap = new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) settings.connectTimeout().toMillis())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark);
        return local;
    }

    /** Runs {@code task} on one of the event loops (used for loopback delivery). */
    public void execute(Runnable task) {
        group.execute(task);
    }

    // ---- sending ----

    /** Sends one encoded message to {@code to}, or queues it while a connection is being set up, or drops it. */
    public void send(PeerAddress to, byte[] payload) {
        synchronized (lock) {
            if (closed) {
                counters.dropped(DropReason.CLOSED);
                return;
            }
            PeerLink link = links.computeIfAbsent(to, PeerLink::new);
            Connection c = link.current;
            if (c != null && c.phase == Phase.ESTABLISHED) {
                if (c.channel.isActive()) {
                    if (!c.channel.isWritable()) {
                        counters.dropped(DropReason.QUEUE_FULL);
                        return;
                    }
                    writeData(c, payload);
                    c.channel.flush();
                    return;
                }
                // Closed under us; its channelInactive is still on the way. Stop using it now.
                link.current = null;
                c.phase = Phase.CLOSING;
                c = null;
            }
            if (link.waiting.size() >= settings.sendQueueBound()) {
                counters.dropped(DropReason.QUEUE_FULL);
                return;
            }
            link.waiting.add(payload);
            if (c == null && link.redial == null) {
                dial(link);
            }
        }
    }

    private void dial(PeerLink link) {
        Connection c = new Connection(true, link.address);
        link.current = c;
        Bootstrap b = bootstrap.clone().handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel channel) {
                setUp(channel, c);
            }
        });
        ChannelFuture connecting = b.connect(link.address.host(), link.address.port());
        // initChannel sets it too, but only once the channel is registered: closing must work before that.
        c.channel = connecting.channel();
        connecting.addListener((ChannelFuture f) -> {
            if (!f.isSuccess()) {
                connectFailed(c, f.cause());
            }
        });
    }

    private void connectFailed(Connection c, Throwable cause) {
        synchronized (lock) {
            c.phase = Phase.CLOSED;
            PeerLink link = links.get(c.remote);
            if (link != null && link.current == c) {
                link.current = null;
                dropWaiting(link, DropReason.UNREACHABLE);
            }
        }
        log.debug("Cannot connect to {}: {}", c.remote, cause == null ? "unknown error" : cause.getMessage());
    }

    private void writeData(Connection c, byte[] payload) {
        ByteBuf buf = c.channel.alloc().buffer(5 + payload.length);
        buf.writeInt(1 + payload.length);
        buf.writeByte(FrameType.DATA.code());
        buf.writeBytes(payload);
        c.channel.write(buf, c.channel.voidPromise());
        counters.sent();
    }

    private void flushWaiting(PeerLink link, Connection c) {
        if (link.waiting.isEmpty()) {
            return;
        }
        while (!link.waiting.isEmpty()) {
            writeData(c, link.waiting.poll());
        }
        c.channel.flush();
    }

    private void dropWaiting(PeerLink link, DropReason reason) {
        if (!link.waiting.isEmpty()) {
            counters.dropped(reason, link.waiting.size());
            link.waiting.clear();
        }
        if (link.isIdle()) {
            links.remove(link.address);
        }
    }

    ChannelFuture writeFrame(Connection c, FrameType type, Consumer<ByteBuf> body) {
        ByteBuf buf = c.channel.alloc().buffer();
        buf.writeInt(0);
        buf.writeByte(type.code());
        body.accept(buf);
        buf.setInt(0, buf.readableBytes() - 4);
        return c.channel.writeAndFlush(buf);
    }

    // ---- channel events ----

    private void setUp(Channel channel, Connection c) {
        c.channel = channel;
        channels.add(channel);
        channel.closeFuture().addListener(f -> channels.remove(channel));
        channel.pipeline().addLast(
                new FrameDecoder(c, settings.frameTimeout(), settings.clock()),
                new ConnectionHandler(this, c));
    }

    /**
     * Counts an inbound connection against the cap on connections still in their handshake; false if the cap is
     * reached, and the connection must be refused. Called with the lock held.
     */
    boolean admitPending(Connection c) {
        if (pendingInbound >= settings.maxPendingHandshakes()) {
            return false;
        }
        pendingInbound++;
        c.pending = true;
        return true;
    }

    /** The connection's handshake is over (completed or not): it no longer counts against the cap. Lock held. */
    private void leavePending(Connection c) {
        if (c.pending) {
            c.pending = false;
            pendingInbound--;
        }
    }







    /**
     * The acceptor's decision, once the connector is identified (and authenticated): keep this connection or the one
     * already in use for the same peer. Called with the lock held.
     */
    void admit(Connection c) {
        PeerLink link = links.computeIfAbsent(c.remote, PeerLink::new);
        Connection existing = link.current;
        boolean accept;
        String replaced = null;
        if (existing == null || existing == c || existing.isEnding()) {
            accept = true;
        } else if (existing.phase == Phase.ESTABLISHED && existing.remoteIncarnation != c.remoteIncarnation) {
            accept = true;
            replaced = "superseded: " + c.remote + " restarted and connected again";
        } else if (!existing.outbound) {
            // The peer dialled again: it gave up on its previous connection, so the newer one wins.
            accept = true;
            replaced = "superseded by a newer connection from " + c.remote;
        } else if (local.compareTo(c.remote) < 0) {
            // Both dialled; ours was opened by the smaller address, so ours is kept (seed 003).
            accept = false;
        } else {
            accept = true;
            replaced = "duplicate: keeping the connection opened by " + c.remote + ", the smaller address";
        }
        PassiveGreet greet = new PassiveGreet(settings.cluster(), local, incarnation, accept);
        if (!accept) {
            c.phase = Phase.CLOSING;
            cancelTimer(c);
            writeFrame(c, FrameType.GREET_PASSIVE, buf -> Handshake.write(buf, greet))
                    .addListener(ChannelFutureListener.CLOSE);
            log.debug("Refused connection {}: this node's own connection, opened by the smaller address, is kept",
                    c.describe());
            return;
        }
        writeFrame(c, FrameType.GREET_PASSIVE, buf -> Handshake.write(buf, greet));
        establish(link, c);
        if (replaced != null) {
            log.debug("Closing connection {}: {}", existing.describe(), replaced);
            closeWithNotice(existing, replaced.startsWith("duplicate") ? "duplicate" : "superseded", replaced);
        }
    }


    /**
     * The peer answered our connection's greet: use the connection, or (refused: the peer keeps the one it opened) give
     * it up and let the messages wait for the peer's. Called with the lock held.
     */
    void settle(Connection c, boolean accepted) {
        PeerLink link = links.get(c.remote);
        if (link == null || link.current != c) {
            closeWithNotice(c, "duplicate", "another connection to " + c.remote + " is in use");
            return;
        }
        if (!accepted) {
            link.current = null;
            c.phase = Phase.CLOSING;
            cancelTimer(c);
            c.channel.close();
            scheduleRedial(link);
            return;
        }
        establish(link, c);
    }

    private void establish(PeerLink link, Connection c) {
        c.phase = Phase.ESTABLISHED;
        c.wasEstablished = true;
        c.frameLimit = settings.maxFrameSize();
        leavePending(c);
        cancelTimer(c);
        link.current = c;
        if (link.redial != null) {
            link.redial.cancel(false);
            link.redial = null;
        }
        flushWaiting(link, c);
    }

    /**
     * After the peer refused our connection in favour of its own, that one should arrive within the connect timeout.
     * If it never does (it failed, or the peer thought ours was already dead), dial again.
     */
    private void scheduleRedial(PeerLink link) {
        if (link.redial != null) {
            return;
        }
        link.redial = group.next().schedule(() -> {
            synchronized (lock) {
                link.redial = null;
                if (closed || links.get(link.address) != link || link.current != null) {
                    return;
                }
                if (link.waiting.isEmpty()) {
                    links.remove(link.address);
                } else {
                    dial(link);
                }
            }
        }, settings.connectTimeout().toNanos(), TimeUnit.NANOSECONDS);
    }



    /** The channel closed, for whatever reason: forget it, and drop what waited for it if it was the one in use. */
    void connectionClosed(Connection c) {
        counters.connectionClosed();
        synchronized (lock) {
            c.phase = Phase.CLOSED;
            cancelTimer(c);
            leavePending(c);
            if (c.remote == null) {
                return;
            }
            PeerLink link = links.get(c.remote);
            if (link == null || link.current != c) {
                return;
            }
            link.current = null;
            // The handshake never completed (or the connection broke right after): what waits cannot be sent.
            dropWaiting(link, DropReason.UNREACHABLE);
        }
    }




    void closeWithNotice(Connection c, String reason, String detail) {
        synchronized (lock) {
            if (c.isEnding()) {
                return;
            }
            c.phase = Phase.CLOSING;
            cancelTimer(c);
        }
        if (c.channel == null) {
            return;
        }
        if (c.channel.isActive()) {
            writeFrame(c, FrameType.CLOSE, buf -> Handshake.write(buf, new CloseNotice(reason, detail)))
                    .addListener(ChannelFutureListener.CLOSE);
            // A peer that reads nothing would keep the notice, and the connection, waiting for ever.
            Channel channel = c.channel;
            io.netty.util.concurrent.ScheduledFuture<?> force =
                    channel.eventLoop().schedule(() -> channel.close(), CLOSE_GRACE.toNanos(), TimeUnit.NANOSECONDS);
            channel.closeFuture().addListener(f -> force.cancel(false));
        } else {
            c.channel.close();
        }
    }

    static void cancelTimer(Connection c) {
        if (c.handshakeTimer != null) {
            c.handshakeTimer.cancel(false);
            c.handshakeTimer = null;
        }
    }


    // ---- shutdown ----

    /** Drops what waits, tells every peer, closes every connection and stops the event loops. */
    public void close(Duration timeout) {
        List<ChannelFuture> closing = new ArrayList<>();
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            for (PeerLink link : links.values()) {
                if (link.redial != null) {
                    link.redial.cancel(false);
                    link.redial = null;
                }
                counters.dropped(DropReason.CLOSED, link.waiting.size());
                link.waiting.clear();
            }
            links.clear();
        }
        if (group == null) {
            return;
        }
        if (server != null) {
            closing.add(server.close());
        }
        for (Channel channel : channels) {
            if (channel.isActive()) {
                ByteBuf buf = channel.alloc().buffer();
                buf.writeInt(0);
                buf.writeByte(FrameType.CLOSE.code());
                Handshake.write(buf, new CloseNotice("shutdown", "node " + local + " is shutting down"));
                buf.setInt(0, buf.readableBytes() - 4);
                closing.add(channel.writeAndFlush(buf).addListener(ChannelFutureListener.CLOSE).channel().closeFuture());
            } else {
                closing.add(channel.close());
            }
        }
        boolean onEventLoop = group.next().inEventLoop() || isEventLoopThread();
        if (!onEventLoop) {
            long deadline = System.nanoTime() + timeout.toNanos() / 2;
            for (ChannelFuture f : closing) {
                f.awaitUninterruptibly(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        }
        io.netty.util.concurrent.Future<?> terminated =
                group.shutdownGracefully(0, timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!onEventLoop) {
            terminated.awaitUninterruptibly(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
        }
    }

    private boolean isEventLoopThread() {
        for (io.netty.util.concurrent.EventExecutor executor : group) {
            if (executor.inEventLoop()) {
                return true;
            }
        }
        return false;
    }
}

package dev.baton.server;

import dev.baton.peer.transport.MessageHandler;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import dev.baton.peer.transport.TransportStats;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Transport} whose messages the fault harness can duplicate, reorder or delay ({@link MessageChaos}): a
 * message to or from a peer the setting names is sent or handed to the protocol as the mode says, the held ones from
 * a timer thread of this transport's own. Both directions are treated, so a node under {@code delay 200} sees each
 * round trip with a peer 400 ms longer.
 *
 * <p>Wrapped around a serverless backend's transport (after its {@link PartitionableTransport}, so a cut peer stays
 * silent) only with {@code --chaos-hooks}. The held messages are delivered even after the setting changes; after
 * {@link #close()} they are dropped. Counters are the wrapped transport's: a copy counts as one more message sent.
 *
 * @param <M> the protocol's message type
 */
final class MessageChaosTransport<M> implements Transport<M>, MessageChaos {

    private static final Logger log = LoggerFactory.getLogger(MessageChaosTransport.class);

    private final Transport<M> delegate;
    private final Random random;
    private volatile Setting setting = Setting.NONE;
    // Created with the first held message; guarded by this.
    private ScheduledThreadPoolExecutor timer;
    private boolean closed;

    /** Wraps {@code delegate}; {@code random} draws the holds of {@link Mode#DUPLICATE} and {@link Mode#REORDER}. */
    MessageChaosTransport(Transport<M> delegate, Random random) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.random = Objects.requireNonNull(random, "random");
    }

    @Override
    public void mangle(Setting value) {
        setting = Objects.requireNonNull(value, "setting");
    }

    @Override
    public Setting setting() {
        return setting;
    }

    @Override
    public PeerAddress local() {
        return delegate.local();
    }

    @Override
    public void send(PeerAddress to, M message) {
        treat(setting, to, () -> delegate.send(to, message));
    }

    @Override
    public void setHandler(MessageHandler<M> handler) {
        Objects.requireNonNull(handler, "handler");
        delegate.setHandler((from, message) -> treat(setting, from, () -> handler.onMessage(from, message)));
    }

    /** Delivers (sends or hands over) one message as {@code now} says for {@code peer}. */
    private void treat(Setting now, PeerAddress peer, Runnable deliver) {
        if (!now.appliesTo(peer)) {
            deliver.run();
            return;
        }
        long most = now.delay().toNanos();
        switch (now.mode()) {
            case DUPLICATE -> {
                deliver.run();
                later(draw(most), deliver);
            }
            case REORDER -> later(draw(most), deliver);
            case DELAY -> later(most, deliver);
            default -> deliver.run();
        }
    }

    private long draw(long most) {
        synchronized (random) {
            return most <= 0 ? 0 : (long) (random.nextDouble() * most);
        }
    }

    private synchronized void later(long nanos, Runnable deliver) {
        if (closed) {
            return;
        }
        if (timer == null) {
            timer = new ScheduledThreadPoolExecutor(1, task -> {
                Thread thread = new Thread(task, "baton-chaos-messages");
                thread.setDaemon(true);
                return thread;
            });
        }
        try {
            timer.schedule(() -> {
                try {
                    deliver.run();
                } catch (RuntimeException e) {
                    log.debug("A held message could not be delivered", e);
                }
            }, nanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            log.debug("Closing: a message to hold back was dropped", e);
        }
    }

    @Override
    public TransportStats stats() {
        return delegate.stats();
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            if (timer != null) {
                timer.shutdownNow();
            }
        }
        delegate.close();
    }
}

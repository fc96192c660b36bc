package dev.baton.work.internal.cluster;

import dev.baton.work.WorkClusterConfig;
import dev.baton.core.store.MessageBus;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import dev.baton.work.internal.route.BadMessageLog;
import dev.baton.work.internal.route.BusCodec;
import dev.baton.work.internal.route.BusMessage;
import dev.baton.work.internal.route.BusProtocolException;
import dev.baton.work.internal.route.InboundStreams;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This process's channel, {@code worker:slave:{processId}} (seed 001's slave side): routed results are de-duplicated
 * per stream, acknowledged to the leader that sent them (after {@code ackEvery} results or {@code ackDelay}), and
 * handed to the listeners; acknowledgements and answers go to whoever waits for them. Garbage is logged, counted and
 * dropped. Runs on the cluster's scheduler.
 */
final class ResultInbox {

    /** Where the inbox hands what it receives. */
    interface Sink {
        void result(String workerUrl, dev.baton.work.worker.WorkerMessage.ImageDetection detection, boolean global);

        void ack(BusMessage.Ack ack);

        void answer(BusMessage.Response response);
    }

    private static final Logger log = LoggerFactory.getLogger(ResultInbox.class);

    private final String group;
    private final String processId;
    private final MessageBus bus;
    private final BusCodec codec;
    private final Scheduler scheduler;
    private final WorkClusterConfig config;
    private final Sink sink;
    private final InboundStreams streams = new InboundStreams(64);
    private final Map<String, String> senders = new HashMap<>();
    private final BadMessageLog bad;
    private boolean flushScheduled;
    private long results;

    ResultInbox(String group, String processId, MessageBus bus, BusCodec codec, Scheduler scheduler,
            Clock clock, WorkClusterConfig config, Sink sink) {
        this.group = group;
        this.processId = processId;
        this.bus = bus;
        this.codec = codec;
        this.scheduler = scheduler;
        this.config = config;
        this.sink = sink;
        this.bad = new BadMessageLog(log, "channel " + config.layout().processChannel(processId), clock,
                config.badMessageLogInterval());
    }

    /** Handles one message of this process's channel. */
    void received(byte[] bytes) {
        BusMessage message;
        try {
            message = codec.decode(bytes);
        } catch (BusProtocolException e) {
            bad.dropped(e.getMessage());
            return;
        }
        if (!group.equals(message.group())) {
            return;
        }
        if (message instanceof BusMessage.Detection d) {
            detection(d);
        } else if (message instanceof BusMessage.Detections batch) {
            batch.results().forEach(this::detection); // the codec refused a batch holding another group's results
        } else if (message instanceof BusMessage.Ack a) {
            sink.ack(a);
        } else if (message instanceof BusMessage.Response r) {
            sink.answer(r);
        } else {
            bad.dropped("a " + message.type() + " message does not belong on a process channel");
        }
    }

    private void detection(BusMessage.Detection d) {
        senders.putIfAbsent(d.stream(), d.sender());
        if (streams.accept(d.stream(), d.seq(), d.floor())) {
            results++;
            sink.result(d.workerUrl(), d.data(), d.global());
        }
        if (streams.unacked(d.stream()) >= config.ackEvery()) {
            sendAck(d.stream());
        } else if (!flushScheduled) {
            flushScheduled = true;
            scheduler.schedule(config.ackDelay(), this::flush);
        }
    }

    private void flush() {
        flushScheduled = false;
        for (String stream : streams.needingAck()) {
            sendAck(stream);
        }
    }

    private void sendAck(String stream) {
        String sender = senders.get(stream);
        long upTo = streams.ack(stream);
        if (sender == null) {
            return;
        }
        bus.publish(config.layout().processChannel(sender), codec.encode(new BusMessage.Ack(group, stream, upTo,
                processId))).exceptionally(e -> {
                    log.debug("could not acknowledge stream {} to {}: {}", stream, sender, e.toString());
                    return -1L;
                });
    }

    /** Garbage dropped on this channel. */
    long badMessages() {
        return bad.count();
    }

    /** Results accepted (duplicates not counted). */
    long results() {
        return results;
    }

    /** Duplicate results dropped. */
    long duplicates() {
        return streams.duplicates();
    }
}

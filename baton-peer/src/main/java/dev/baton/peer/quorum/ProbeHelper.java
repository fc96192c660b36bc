package dev.baton.peer.quorum;

import dev.baton.peer.quorum.QuorumMessage.Probe;
import dev.baton.peer.quorum.QuorumMessage.ProbeAck;
import dev.baton.peer.quorum.QuorumMessage.ProbeReport;
import dev.baton.peer.quorum.QuorumMessage.ProbeRequest;
import dev.baton.peer.transport.PeerAddress;
import java.util.HashMap;
import java.util.Map;

/**
 * A member's side of the leader's indirect check: asked by its leader to probe a silent member, it sends the probe
 * and reports within half the probe timeout whether the member answered. Confined to the node's scheduler.
 */
final class ProbeHelper {

    private record Pending(PeerAddress leader, long version, PeerAddress target) {
    }

    private final NodeContext ctx;
    private final Map<Long, Pending> pending = new HashMap<>();

    ProbeHelper(NodeContext ctx) {
        this.ctx = ctx;
    }

    /** A {@link ProbeRequest} from {@code leader}; the node has checked that it follows that leader. */
    void onRequest(PeerAddress leader, ProbeRequest request) {
        pending.put(request.probeId(), new Pending(leader, request.version(), request.target()));
        ctx.send(request.target(), new Probe(request.probeId()));
        ctx.scheduler().schedule(ctx.config().probeTimeout().dividedBy(2), () -> {
            Pending unanswered = pending.remove(request.probeId());
            if (unanswered != null) {
                ctx.send(unanswered.leader(), new ProbeReport(unanswered.version(), unanswered.target(),
                        request.probeId(), false));
            }
        });
    }

    /** A {@link ProbeAck}: true if it answered one of this helper's probes (and was reported to the leader). */
    boolean onAck(PeerAddress from, ProbeAck ack) {
        Pending answered = pending.get(ack.probeId());
        if (answered == null || !answered.target().equals(from)) {
            return false;
        }
        pending.remove(ack.probeId());
        ctx.send(answered.leader(), new ProbeReport(answered.version(), from, ack.probeId(), true));
        return true;
    }
}

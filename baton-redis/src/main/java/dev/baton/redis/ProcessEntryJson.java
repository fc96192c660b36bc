package dev.baton.redis;

import dev.baton.core.NodeInfo;
import dev.baton.redis.internal.NodeInfoCodec;

/**
 * The JSON one entry of a group's process registry holds in Redis ({@code {…}:processes}, one hash field per
 * process), with the field names of the original {@code ProcessInfo} / {@code SlaveNode} layout:
 *
 * <pre>{@code
 * {"processId":"…","nodeId":"…","identifier":"orders-api","role":"slave","apiAddress":"http://…",
 *  "channelName":"worker:slave:…","capabilities":{…},"metadata":{"zone":"a"},
 *  "registeredAt":"2026-01-01T00:00:00.000Z","lastSeen":"2026-01-01T00:00:10.000Z"}
 * }</pre>
 *
 * <p>For tools that read or write the registry hash directly, and for measuring what a listing costs per entry: the
 * store itself uses the same form. Decoding is lenient (unknown fields ignored, missing ones defaulted). A role read
 * back from an entry is what the entry says; the store derives the role it reports from the lease instead.
 */
public final class ProcessEntryJson {

    private static final NodeInfoCodec CODEC = new NodeInfoCodec();

    private ProcessEntryJson() {
    }

    /** The entry's JSON for {@code node}; timestamps only when set (the store stamps its own time when it writes). */
    public static byte[] encode(NodeInfo node) {
        return CODEC.encode(node);
    }

    /**
     * Reads an entry.
     *
     * @throws IllegalArgumentException if {@code json} is not a JSON object with a {@code processId} or
     *                                  {@code nodeId}
     */
    public static NodeInfo decode(byte[] json) {
        return CODEC.decode(json);
    }
}

package dev.baton.peer.transport.internal;

import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.RejectReason;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * The handshake payloads and their binary layout. Every greet starts with the magic {@code "BTNP"} and the protocol
 * version, so that a node can tell a stranger from a Baton node of another version before reading further.
 * Strings are a 2-byte length and UTF-8; byte strings a 1-byte length.
 */
public final class Handshake {

    /** The wire protocol version this code speaks; a greet with another version is refused. */
    public static final int PROTOCOL_VERSION = 1;
    /** "BTNP". */
    static final int MAGIC = 0x42544E50;
    /** Length of the random nonces and of an HMAC-SHA256 proof. */
    public static final int NONCE_BYTES = 32;
    static final int MAX_NAME_BYTES = 255;
    static final int MAX_DETAIL_BYTES = 1024;
    /**
     * Largest frame (type byte and payload) a connection accepts until its handshake has completed. The largest
     * handshake frame is a close notice with the longest reason and detail, 1,284 bytes; a greet with the longest
     * cluster name and host is 564. The margin leaves room for a later version's fields, and the limit keeps what a
     * stranger can make a node buffer small.
     */
    public static final int MAX_FRAME_BYTES = 4096;

    private Handshake() {
    }

    /** The connecting side's greet; {@code nonce} is empty unless it authenticates. */
    public record ActiveGreet(String cluster, PeerAddress address, long incarnation, byte[] nonce) {
    }

    /** The accepting side's greet; {@code accepted} false means it keeps another connection to the same node. */
    public record PassiveGreet(String cluster, PeerAddress address, long incarnation, boolean accepted) {
    }

    /** The accepting side's address, its nonce, and its proof over both nonces. */
    public record AuthChallenge(PeerAddress address, byte[] nonce, byte[] proof) {
    }

    /** The connecting side's proof over both nonces. */
    public record AuthResponse(byte[] proof) {
    }

    /** Why a connection is being closed on purpose. */
    public record CloseNotice(String reason, String detail) {
    }

    // ---- writing ----

    public static void write(ByteBuf out, ActiveGreet greet) {
        writeGreetHead(out, greet.cluster(), greet.address(), greet.incarnation());
        writeBytes(out, greet.nonce());
    }

    public static void write(ByteBuf out, PassiveGreet greet) {
        writeGreetHead(out, greet.cluster(), greet.address(), greet.incarnation());
        out.writeByte(greet.accepted() ? 1 : 0);
    }

    public static void write(ByteBuf out, AuthChallenge challenge) {
        writeAddress(out, challenge.address());
        writeBytes(out, challenge.nonce());
        writeBytes(out, challenge.proof());
    }

    public static void write(ByteBuf out, AuthResponse response) {
        writeBytes(out, response.proof());
    }

    public static void write(ByteBuf out, CloseNotice notice) {
        writeString(out, notice.reason(), MAX_NAME_BYTES);
        writeString(out, notice.detail(), MAX_DETAIL_BYTES);
    }

    private static void writeGreetHead(ByteBuf out, String cluster, PeerAddress address, long incarnation) {
        out.writeInt(MAGIC);
        out.writeShort(PROTOCOL_VERSION);
        writeString(out, cluster, MAX_NAME_BYTES);
        writeAddress(out, address);
        out.writeLong(incarnation);
    }

    private static void writeAddress(ByteBuf out, PeerAddress address) {
        writeString(out, address.host(), MAX_NAME_BYTES);
        out.writeShort(address.port());
    }

    private static void writeString(ByteBuf out, String value, int max) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > max) {
            // Only a close detail can be this long; cut it rather than fail while closing.
            byte[] cut = new byte[max];
            System.arraycopy(bytes, 0, cut, 0, max);
            bytes = new String(cut, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8);
            if (bytes.length > max) {
                bytes = new byte[0];
            }
        }
        out.writeShort(bytes.length);
        out.writeBytes(bytes);
    }

    private static void writeBytes(ByteBuf out, byte[] value) {
        out.writeByte(value.length);
        out.writeBytes(value);
    }

    // ---- reading ----

    public static ActiveGreet readActiveGreet(ByteBuf in) throws FrameException {
        try {
            readMagicAndVersion(in);
            String cluster = readString(in, MAX_NAME_BYTES, "cluster name");
            PeerAddress address = readAddress(in);
            long incarnation = in.readLong();
            byte[] nonce = readBytes(in);
            if (nonce.length != 0 && nonce.length != NONCE_BYTES) {
                throw new FrameException(RejectReason.BAD_GREET, "active greet has a nonce of " + nonce.length + " bytes");
            }
            requireEnd(in, "active greet");
            return new ActiveGreet(cluster, address, incarnation, nonce);
        } catch (IndexOutOfBoundsException e) {
            throw new FrameException(RejectReason.BAD_GREET, "active greet is truncated");
        }
    }

    public static PassiveGreet readPassiveGreet(ByteBuf in) throws FrameException {
        try {
            readMagicAndVersion(in);
            String cluster = readString(in, MAX_NAME_BYTES, "cluster name");
            PeerAddress address = readAddress(in);
            long incarnation = in.readLong();
            int accepted = in.readUnsignedByte();
            if (accepted > 1) {
                throw new FrameException(RejectReason.BAD_GREET, "passive greet has an accepted flag of " + accepted);
            }
            requireEnd(in, "passive greet");
            return new PassiveGreet(cluster, address, incarnation, accepted == 1);
        } catch (IndexOutOfBoundsException e) {
            throw new FrameException(RejectReason.BAD_GREET, "passive greet is truncated");
        }
    }

    public static AuthChallenge readAuthChallenge(ByteBuf in) throws FrameException {
        try {
            PeerAddress address = readAddress(in);
            byte[] nonce = readBytes(in);
            byte[] proof = readBytes(in);
            if (nonce.length != NONCE_BYTES || proof.length != NONCE_BYTES) {
                throw new FrameException(RejectReason.BAD_GREET, "auth challenge has a nonce or proof of the wrong length");
            }
            requireEnd(in, "auth challenge");
            return new AuthChallenge(address, nonce, proof);
        } catch (IndexOutOfBoundsException e) {
            throw new FrameException(RejectReason.BAD_GREET, "auth challenge is truncated");
        }
    }

    public static AuthResponse readAuthResponse(ByteBuf in) throws FrameException {
        try {
            byte[] proof = readBytes(in);
            if (proof.length != NONCE_BYTES) {
                throw new FrameException(RejectReason.BAD_GREET, "auth response has a proof of " + proof.length + " bytes");
            }
            requireEnd(in, "auth response");
            return new AuthResponse(proof);
        } catch (IndexOutOfBoundsException e) {
            throw new FrameException(RejectReason.BAD_GREET, "auth response is truncated");
        }
    }

    /** Reads a close notice; a broken one still closes the connection, so it never fails. */
    public static CloseNotice readCloseNotice(ByteBuf in) {
        try {
            return new CloseNotice(readString(in, MAX_NAME_BYTES, "reason"), readString(in, MAX_DETAIL_BYTES, "detail"));
        } catch (IndexOutOfBoundsException | FrameException e) {
            return new CloseNotice("unknown", "(unreadable close notice)");
        }
    }

    private static void readMagicAndVersion(ByteBuf in) throws FrameException {
        int magic = in.readInt();
        if (magic != MAGIC) {
            throw new FrameException(RejectReason.BAD_GREET, String.format("not a Baton peer greet (magic 0x%08x)", magic));
        }
        int version = in.readUnsignedShort();
        if (version != PROTOCOL_VERSION) {
            throw new FrameException(RejectReason.VERSION_MISMATCH,
                    "peer speaks protocol version " + version + ", this node speaks " + PROTOCOL_VERSION);
        }
    }

    private static PeerAddress readAddress(ByteBuf in) throws FrameException {
        String host = readString(in, MAX_NAME_BYTES, "host");
        int port = in.readUnsignedShort();
        try {
            return new PeerAddress(host, port);
        } catch (IllegalArgumentException e) {
            throw new FrameException(RejectReason.BAD_GREET, "invalid peer address: " + e.getMessage());
        }
    }

    private static String readString(ByteBuf in, int max, String what) throws FrameException {
        int length = in.readUnsignedShort();
        if (length > max) {
            throw new FrameException(RejectReason.BAD_GREET, what + " is " + length + " bytes, more than " + max);
        }
        byte[] bytes = new byte[length];
        in.readBytes(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static byte[] readBytes(ByteBuf in) {
        byte[] bytes = new byte[in.readUnsignedByte()];
        in.readBytes(bytes);
        return bytes;
    }

    private static void requireEnd(ByteBuf in, String what) throws FrameException {
        if (in.isReadable()) {
            throw new FrameException(RejectReason.BAD_GREET, what + " has " + in.readableBytes() + " trailing bytes");
        }
    }
}

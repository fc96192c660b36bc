package dev.baton.postgres.internal;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The text carried by Baton's NOTIFY payloads. One PostgreSQL channel per schema carries everything, so the payload
 * says what it is and for which group or message channel:
 *
 * <pre>
 * lease &lt;n&gt;:&lt;group&gt; &lt;lease notice&gt;       e.g.  lease 6:orders acquired 7 node-a
 * member &lt;n&gt;:&lt;group&gt; &lt;member notice&gt;     e.g.  member 6:orders registered node-b
 * message &lt;n&gt;:&lt;channel&gt; &lt;base64 bytes&gt;  e.g.  message 18:worker:slave:node-b aGVsbG8=
 * </pre>
 *
 * {@code n} is the length of the name in UTF-16 code units, so names may hold any character, spaces and newlines
 * included. Notices use {@code LeaseNotice.encode()} / {@code MemberNotice.encode()}. PostgreSQL caps a payload at
 * {@value #MAX_BYTES} bytes (UTF-8).
 *
 * @param kind what the payload carries
 * @param name the group (notices) or message channel
 * @param body the notice text, or the base64 of a message
 */
public record NoticePayload(Kind kind, String name, String body) {

    /** The largest payload PostgreSQL accepts: {@code NOTIFY} payloads must be shorter than 8000 bytes. */
    public static final int MAX_BYTES = 7999;

    public enum Kind {
        LEASE("lease"),
        MEMBER("member"),
        MESSAGE("message");

        private final String word;

        Kind(String word) {
            this.word = word;
        }

        public String word() {
            return word;
        }
    }

    /** The payload up to and including the space before the body: what SQL prepends to a notice it completes. */
    public static String prefix(Kind kind, String name) {
        return kind.word() + " " + name.length() + ":" + name + " ";
    }

    /** The whole payload text. */
    public String encode() {
        return prefix(kind, name) + body;
    }

    /** A message payload: the channel and the bytes in base64. */
    public static NoticePayload message(String channel, byte[] message) {
        return new NoticePayload(Kind.MESSAGE, channel, Base64.getEncoder().encodeToString(message));
    }

    /** The message bytes of a {@link Kind#MESSAGE} payload. */
    public byte[] messageBytes() {
        return Base64.getDecoder().decode(body);
    }

    /** The payload's size as PostgreSQL counts it. */
    public static int byteLength(String payload) {
        return payload.getBytes(StandardCharsets.UTF_8).length;
    }

    /**
     * Parses {@link #encode()}'s form.
     *
     * @throws IllegalArgumentException if {@code payload} is not a Baton payload
     */
    public static NoticePayload decode(String payload) {
        int space = payload.indexOf(' ');
        if (space < 0) {
            throw new IllegalArgumentException("not a Baton payload: " + abbreviate(payload));
        }
        Kind kind = switch (payload.substring(0, space)) {
            case "lease" -> Kind.LEASE;
            case "member" -> Kind.MEMBER;
            case "message" -> Kind.MESSAGE;
            default -> throw new IllegalArgumentException("unknown payload kind: " + abbreviate(payload));
        };
        int colon = payload.indexOf(':', space + 1);
        if (colon < 0) {
            throw new IllegalArgumentException("payload without a name length: " + abbreviate(payload));
        }
        int length;
        try {
            length = Integer.parseInt(payload.substring(space + 1, colon));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("payload with a malformed name length: " + abbreviate(payload));
        }
        // Compared with what is left rather than added to the colon's index: a length near Integer.MAX_VALUE must not
        // wrap the end of the name around to a negative index.
        if (length < 0 || length >= payload.length() - colon - 1 || payload.charAt(colon + 1 + length) != ' ') {
            throw new IllegalArgumentException("payload whose name length does not fit: " + abbreviate(payload));
        }
        int nameEnd = colon + 1 + length;
        return new NoticePayload(kind, payload.substring(colon + 1, nameEnd), payload.substring(nameEnd + 1));
    }

    private static String abbreviate(String text) {
        return text.length() <= 80 ? text : text.substring(0, 80) + "…";
    }
}

package dev.baton.core.store;

/**
 * A push notice from {@link RegistryStore#watchMembers}: a process registered or unregistered. A hint only; the
 * registry listing is the truth.
 */
public record MemberNotice(Kind kind, String nodeId) {

    public enum Kind {
        REGISTERED,
        UNREGISTERED
    }

    /** Wire form: {@code registered <nodeId>}. */
    public String encode() {
        return kind.name().toLowerCase(java.util.Locale.ROOT) + " " + nodeId;
    }

    /**
     * Parses {@link #encode()}'s form.
     *
     * @throws IllegalArgumentException if the text is not a member notice
     */
    public static MemberNotice decode(String text) {
        int space = text.indexOf(' ');
        if (space <= 0 || space == text.length() - 1) {
            throw new IllegalArgumentException("malformed member notice: " + text);
        }
        Kind kind = switch (text.substring(0, space)) {
            case "registered" -> Kind.REGISTERED;
            case "unregistered" -> Kind.UNREGISTERED;
            default -> throw new IllegalArgumentException("unknown member notice kind: " + text.substring(0, space));
        };
        return new MemberNotice(kind, text.substring(space + 1));
    }
}

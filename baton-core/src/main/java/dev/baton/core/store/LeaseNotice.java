package dev.baton.core.store;

/**
 * A push notice from {@link LeaseStore#watch}: a lease was acquired or released. Notices are hints, not a log:
 * they may be lost or arrive late, and an election never trusts one for safety.
 *
 * @param kind  what happened
 * @param owner the node that acquired or released
 * @param term  the term concerned
 */
public record LeaseNotice(Kind kind, String owner, long term) {

    public enum Kind {
        ACQUIRED,
        RELEASED
    }

    /** Wire form used by stores that publish text: {@code acquired <term> <owner>}. */
    public String encode() {
        return kind.name().toLowerCase(java.util.Locale.ROOT) + " " + term + " " + owner;
    }

    /**
     * Parses {@link #encode()}'s form.
     *
     * @throws IllegalArgumentException if the text is not a notice
     */
    public static LeaseNotice decode(String text) {
        String[] parts = text.split(" ", 3);
        if (parts.length != 3) {
            throw new IllegalArgumentException("malformed lease notice: " + text);
        }
        Kind kind = switch (parts[0]) {
            case "acquired" -> Kind.ACQUIRED;
            case "released" -> Kind.RELEASED;
            default -> throw new IllegalArgumentException("unknown lease notice kind: " + parts[0]);
        };
        try {
            return new LeaseNotice(kind, parts[2], Long.parseLong(parts[1]));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("malformed term in lease notice: " + text, e);
        }
    }
}

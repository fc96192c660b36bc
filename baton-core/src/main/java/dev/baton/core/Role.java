package dev.baton.core;

/**
 * A member's role in its group. Seed 000 calls these {@code master} and {@code slave}; {@link #seedName()} gives
 * those words for users and wire formats that expect them.
 */
public enum Role {
    LEADER("master"),
    FOLLOWER("slave");

    private final String seedName;

    Role(String seedName) {
        this.seedName = seedName;
    }

    /** The seed's word for this role: {@code master} or {@code slave}. */
    public String seedName() {
        return seedName;
    }

    /** Parses {@code leader}/{@code follower} or the seed's {@code master}/{@code slave}, ignoring case. */
    public static Role parse(String text) {
        for (Role role : values()) {
            if (role.name().equalsIgnoreCase(text) || role.seedName.equalsIgnoreCase(text)) {
                return role;
            }
        }
        throw new IllegalArgumentException("unknown role '" + text + "' (expected leader, follower, master or slave)");
    }
}

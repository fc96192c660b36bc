package dev.baton.redis.internal;

import io.lettuce.core.cluster.SlotHash;

/**
 * The Redis names of sessions ({@link dev.baton.core.store.SessionStore}). A session's own key is
 * {@code <keyPrefix>session:<id>}, a hash of the owner's node id, node info JSON and store-stamped lastSeen, with the
 * session's TTL.
 *
 * <p>The group scripts judge a bound lease by whether its session's key exists, and only the group's data says which
 * session that is, so a script computes the key's name: it is {@link #sessionsFor(GroupKeys)} followed by the id. On
 * one server (or a Sentinel-watched primary) that is the session's own key. On a Redis Cluster a script may only
 * touch keys of its group's slot, so each session keeps a <em>copy</em> of its key in every slot it acquires or joins
 * in, named {@code {<keyPrefix>sessions:<n>}:session:<id>}, where {@code <n>} is the smallest number that puts the
 * hash tag in that slot: one copy per slot in use, however many groups share the slot, so keeping a session alive
 * costs one command per slot rather than per group.
 */
public final class SessionKeys {

    private final String keyPrefix;
    private final boolean copies;
    /** For each slot, a hash tag in it (on a cluster), else null. */
    private final String[] slotTags;

    /**
     * @param copies whether sessions keep a copy of their key in each group slot they use (on a Redis Cluster); if
     *               so, the copies' names are computed here, which takes some 50 ms (so a store does it while it
     *               connects, never on a caller's thread)
     */
    public SessionKeys(String keyPrefix, boolean copies) {
        this.keyPrefix = keyPrefix;
        this.copies = copies;
        this.slotTags = copies ? slotTags(keyPrefix) : null;
    }

    /** Whether sessions keep a copy of their key in each group slot they use (on a Redis Cluster). */
    public boolean copies() {
        return copies;
    }

    /** The session's own key. */
    public String session(String id) {
        return sessions() + id;
    }

    /**
     * The prefix that, followed by a session id, names the session's key as a script of {@code group} reaches it:
     * the session's own key, or on a cluster its copy in the group's slot.
     */
    public String sessionsFor(GroupKeys group) {
        if (!copies) {
            return sessions();
        }
        return "{" + slotTags[SlotHash.getSlot(group.tag())] + "}:session:";
    }

    /** The session's key as a script of {@code group} reaches it (see {@link #sessionsFor}). */
    public String sessionIn(GroupKeys group, String id) {
        return sessionsFor(group) + id;
    }

    private String sessions() {
        return keyPrefix + "session:";
    }

    /**
     * For every slot, {@code <keyPrefix>sessions:<n>} (braces left out of the prefix) with the smallest {@code n} that
     * hashes to it. About 110,000 CRC16 computations, once per store and only on a cluster; every client with the same
     * key prefix finds the same names, which is what lets one client's script find another client's copy.
     */
    private static String[] slotTags(String keyPrefix) {
        String[] tags = new String[SlotHash.SLOT_COUNT];
        // Braces in the prefix would make Redis hash only part of the tag, the same for every n.
        String base = keyPrefix.replace("{", "").replace("}", "") + "sessions:";
        int filled = 0;
        for (long n = 0; filled < tags.length; n++) {
            String tag = base + n;
            int slot = SlotHash.getSlot(tag);
            if (tags[slot] == null) {
                tags[slot] = tag;
                filled++;
            }
        }
        return tags;
    }
}

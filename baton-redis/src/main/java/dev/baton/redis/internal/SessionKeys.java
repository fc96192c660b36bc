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
    private volatile String[] slotTags;

    /**
     * @param copies whether sessions keep a copy of their key in each group slot they use (on a Redis Cluster)
     */
    public SessionKeys(String keyPrefix, boolean copies) {
        this.keyPrefix = keyPrefix;
        this.copies = copies;
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
        return "{" + slotTag(SlotHash.getSlot(group.tag())) + "}:session:";
    }

    /** The session's key as a script of {@code group} reaches it (see {@link #sessionsFor}). */
    public String sessionIn(GroupKeys group, String id) {
        return sessionsFor(group) + id;
    }

    private String sessions() {
        return keyPrefix + "session:";
    }

    /** A hash tag (without braces) in {@code slot}, the same one every time for this key prefix. */
    private String slotTag(int slot) {
        String[] tags = slotTags;
        if (tags == null) {
            tags = computeSlotTags();
        }
        return tags[slot];
    }

    /**
     * For every slot, {@code <keyPrefix>sessions:<n>} (braces left out of the prefix) with the smallest {@code n} that hashes to it. About 170,000
     * CRC16 computations, once per store and only on a cluster; every client with the same key prefix finds the same
     * names, which is what lets one client's script find another client's copy.
     */
    private synchronized String[] computeSlotTags() {
        if (slotTags != null) {
            return slotTags;
        }
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
        slotTags = tags;
        return tags;
    }
}

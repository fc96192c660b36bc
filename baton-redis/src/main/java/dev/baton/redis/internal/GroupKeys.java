package dev.baton.redis.internal;

/**
 * The Redis names of one group (DESIGN §3 "Redis layout"). Seed 000's key names, each under the hash tag
 * {@code {<keyPrefix><group>}}, so every key one script touches lives in the same Redis Cluster slot.
 *
 * @param tag the hash tag, braces included
 */
public record GroupKeys(String tag) {

    /** The names for {@code group} under {@code keyPrefix}. */
    public static GroupKeys of(String keyPrefix, String group) {
        if (group == null || group.isBlank()) {
            throw new IllegalArgumentException("group must not be blank");
        }
        return new GroupKeys("{" + keyPrefix + group + "}");
    }

    /** The lease holder's node id, with the lease TTL (seed: {@code master-election:master}). */
    public String master() {
        return tag + ":master";
    }

    /** The current lease's term, with the same TTL as {@link #master()}. */
    public String masterTerm() {
        return tag + ":master_term";
    }

    /** The store time (ms) of the last acquisition or renewal, with the lease TTL (seed's heartbeat key). */
    public String heartbeat() {
        return tag + ":heartbeat";
    }

    /** The lease holder's process JSON, with the lease TTL (seed's {@code master_process}). */
    public String masterProcess() {
        return tag + ":master_process";
    }

    /**
     * The id of the session the lease is bound to ({@link dev.baton.core.store.SessionStore}), without TTL like every
     * key of a bound lease; absent for a lease with a TTL of its own.
     */
    public String masterSession() {
        return tag + ":master_session";
    }

    /** Hash of the id of each session that joined the group to the store time it joined (ISO-8601). */
    public String sessionMembers() {
        return tag + ":session_members";
    }

    /** The group's term counter: the newest term issued. No TTL. */
    public String term() {
        return tag + ":term";
    }

    /** Hash of process id to process JSON (seed's {@code processes}). */
    public String processes() {
        return tag + ":processes";
    }

    /** Sorted set of process id scored by expiry time in store milliseconds; stands in for per-field TTL. */
    public String processesExpiry() {
        return tag + ":processes:expiry";
    }

    /** Hash with {@code term}, {@code writer} and {@code value} of one fenced register. */
    public String fenced(String register) {
        if (register == null || register.isEmpty()) {
            throw new IllegalArgumentException("register must not be empty");
        }
        return tag + ":fenced:" + register;
    }

    /**
     * Hash of one fenced map: entry key (any characters; hash fields are binary-safe) to the entry encoded by
     * {@link FencedEntryCodec}.
     */
    public String map(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("map must not be empty");
        }
        return tag + ":map:" + name;
    }

    /** List of the group's cluster events as JSON, newest first, trimmed to the retention (seed 002's table). */
    public String events() {
        return tag + ":events";
    }

    /** The event id counter: the id of the newest event appended. No TTL. */
    public String eventsSeq() {
        return tag + ":events:seq";
    }

    /**
     * Hash of the group's leader record (seed 004's {@code GMLeader}): {@code term}, {@code leader_id},
     * {@code process_id}, {@code address}. No TTL; only {@code leader_write.lua} writes it.
     */
    public String leader() {
        return tag + ":leader";
    }

    /** Pub/sub channel of lease notices ({@code acquired <term> <owner>}, {@code released <term> <owner>}). */
    public String noticesChannel() {
        return tag + ":notices";
    }

    /** Pub/sub channel of member notices ({@code registered <id>}, {@code unregistered <id>}). */
    public String membersChannel() {
        return tag + ":members";
    }
}

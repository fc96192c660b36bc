package dev.baton.etcd.internal;

import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;

/**
 * Where one group's data lives in etcd. Group {@code G} under key prefix {@code P} uses {@code P G/lease} (the lease
 * holder's node id, attached to an etcd lease; its create revision is the term), {@code P G/leader_process} (the
 * holder's process info, same etcd lease), {@code P G/term} (rewritten by every grant, so its mod revision is the
 * newest term issued), {@code P G/members/<id>} (one registry entry each, with its own etcd lease),
 * {@code P G/session_members/<session>} (one per session that joined, on the session's etcd lease),
 * {@code P G/fenced/<register>}, {@code P G/map/<map>/<key>}, {@code P G/events/<id>} and {@code P G/leader_record}.
 *
 * <p>Group, register, map and member names are escaped ({@code %} and {@code /} as {@code %25} and {@code %2F}) so one
 * name can never reach into another's keys; map keys are kept as they are, since they sit last.
 */
public final class GroupKeys {

    private final String base;

    private GroupKeys(String base) {
        this.base = base;
    }

    /** The keys of {@code group} under {@code keyPrefix} (which ends in {@code /}). */
    public static GroupKeys of(String keyPrefix, String group) {
        return new GroupKeys(keyPrefix + escape(group) + "/");
    }

    /** The key a message channel's messages are written to: {@code P bus/<channel>}. */
    public static ByteSequence busChannel(String keyPrefix, String channel) {
        return bytes(keyPrefix + "bus/" + channel);
    }

    public ByteSequence lease() {
        return bytes(base + "lease");
    }

    public ByteSequence leaderProcess() {
        return bytes(base + "leader_process");
    }

    public ByteSequence term() {
        return bytes(base + "term");
    }

    public ByteSequence members() {
        return bytes(base + "members/");
    }

    public ByteSequence member(String nodeId) {
        return bytes(base + "members/" + escape(nodeId));
    }

    /** The prefix of the sessions that joined the group ({@link dev.baton.core.store.SessionStore#join}). */
    public ByteSequence sessionMembers() {
        return bytes(base + "session_members/");
    }

    public ByteSequence sessionMember(String session) {
        return bytes(base + "session_members/" + escape(session));
    }

    /** A session's key, {@code P sessions/<id>}: its owner's node info, on the session's etcd lease. */
    public static ByteSequence session(String keyPrefix, String session) {
        return bytes(keyPrefix + "sessions/" + escape(session));
    }

    public ByteSequence register(String name) {
        return bytes(base + "fenced/" + escape(name));
    }

    public ByteSequence map(String name) {
        return bytes(base + "map/" + escape(name) + "/");
    }

    public ByteSequence mapEntry(String name, String key) {
        return bytes(base + "map/" + escape(name) + "/" + key);
    }

    public ByteSequence events() {
        return bytes(base + "events/");
    }

    public ByteSequence leaderRecord() {
        return bytes(base + "leader_record");
    }

    /** The map key of an entry key read back under {@link #map(String)}. */
    public static String mapKey(ByteSequence mapPrefix, ByteSequence entryKey) {
        byte[] all = entryKey.getBytes();
        int start = mapPrefix.size();
        return new String(all, start, all.length - start, StandardCharsets.UTF_8);
    }

    public static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    public static String text(ByteSequence bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    static String escape(String name) {
        return name.replace("%", "%25").replace("/", "%2F");
    }

    /** The name {@link #escape} was given. */
    static String unescape(String escaped) {
        return escaped.replace("%2F", "/").replace("%25", "%");
    }
}

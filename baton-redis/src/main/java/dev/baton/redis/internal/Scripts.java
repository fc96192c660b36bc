package dev.baton.redis.internal;

import java.util.List;

/** Every Lua script the Redis store runs, read once per JVM. */
public final class Scripts {

    public static final LuaScript ACQUIRE = LuaScript.load("acquire");
    public static final LuaScript RENEW = LuaScript.load("renew");
    public static final LuaScript RELEASE = LuaScript.load("release");
    public static final LuaScript READ = LuaScript.load("read");
    public static final LuaScript REGISTER = LuaScript.load("register");
    public static final LuaScript HEARTBEAT = LuaScript.load("heartbeat");
    public static final LuaScript UNREGISTER = LuaScript.load("unregister");
    public static final LuaScript MEMBERS = LuaScript.load("members");
    public static final LuaScript MEMBER = LuaScript.load("member");
    public static final LuaScript SWEEP = LuaScript.load("sweep");
    public static final LuaScript FENCED_WRITE = LuaScript.load("fenced_write");
    public static final LuaScript FENCED_PUT = LuaScript.load("fenced_put");
    public static final LuaScript FENCED_REMOVE = LuaScript.load("fenced_remove");
    public static final LuaScript APPEND_EVENT = LuaScript.load("append_event");
    public static final LuaScript RECENT_EVENTS = LuaScript.load("recent_events");
    public static final LuaScript LEADER_WRITE = LuaScript.load("leader_write");
    public static final LuaScript LEADER_INFO = LuaScript.load("leader_info");
    public static final LuaScript SESSION_OPEN = LuaScript.load("session_open");
    public static final LuaScript SESSION_KEEP_ALIVE = LuaScript.load("session_keep_alive");
    public static final LuaScript SESSION_READ = LuaScript.load("session_read");
    public static final LuaScript SESSION_ACQUIRE = LuaScript.load("session_acquire");
    public static final LuaScript SESSION_JOIN = LuaScript.load("session_join");
    public static final LuaScript SESSION_LEAVE = LuaScript.load("session_leave");
    public static final LuaScript SESSION_MEMBERS = LuaScript.load("session_members");

    /** All of the above, for loading at connect time. */
    public static final List<LuaScript> ALL = List.of(ACQUIRE, RENEW, RELEASE, READ, REGISTER, HEARTBEAT,
            UNREGISTER, MEMBERS, MEMBER, SWEEP, FENCED_WRITE, FENCED_PUT, FENCED_REMOVE, APPEND_EVENT,
            RECENT_EVENTS, LEADER_WRITE, LEADER_INFO, SESSION_OPEN, SESSION_KEEP_ALIVE, SESSION_READ, SESSION_ACQUIRE,
            SESSION_JOIN, SESSION_LEAVE, SESSION_MEMBERS);

    private Scripts() {}
}

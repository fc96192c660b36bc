package dev.baton.redis.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One Lua script of the Redis store: its source (the shared {@code lib.lua} followed by the script's own file under
 * {@code dev/baton/redis/}) and the SHA-1 digest Redis knows it by.
 *
 * @param name   the file name without {@code .lua}, used in error messages
 * @param source the complete source sent to {@code SCRIPT LOAD}
 * @param sha    lower-case hex SHA-1 of the source, the {@code EVALSHA} digest
 */
public record LuaScript(String name, String source, String sha) {

    private static final String FOLDER = "/dev/baton/redis/";
    private static final String LIBRARY = "lib";
    /** The first line of {@code lib.lua}: how {@code notify} sends a notice. */
    private static final String PUBLISH_LINE = "local NOTICE_COMMAND = 'PUBLISH'";
    private static final String SHARDED_PUBLISH_LINE = "local NOTICE_COMMAND = 'SPUBLISH'";

    /** Reads {@code <name>.lua} and prepends the shared helpers. */
    public static LuaScript load(String name) {
        String source = read(LIBRARY) + "\n" + read(name);
        return new LuaScript(name, source, sha1(source));
    }

    /**
     * This script with its notices sent by {@code SPUBLISH} instead of {@code PUBLISH}, for a Redis Cluster: a
     * sharded message goes only to the nodes of the channel's shard (the group's, since notice channels carry the
     * group's hash tag) instead of every node of the cluster.
     */
    public LuaScript sharded() {
        if (!source.startsWith(PUBLISH_LINE)) {
            throw new IllegalStateException("lib.lua must start with " + PUBLISH_LINE + " for script " + name);
        }
        String variant = SHARDED_PUBLISH_LINE + source.substring(PUBLISH_LINE.length());
        return new LuaScript(name, variant, sha1(variant));
    }

    private static String read(String name) {
        String resource = FOLDER + name + ".lua";
        try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing script resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }

    private static String sha1(String source) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JVM", e);
        }
    }
}

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

    /** Reads {@code <name>.lua} and prepends the shared helpers. */
    public static LuaScript load(String name) {
        String source = read(LIBRARY) + "\n" + read(name);
        return new LuaScript(name, source, sha1(source));
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

package dev.baton.server.internal.api;

import dev.baton.http.LeaderGate;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * {@code --api-token-file}: writes ({@code POST}, {@code PUT}, {@code DELETE}, ...) need
 * {@code Authorization: Bearer <token>}; anything else is answered {@code 401} with the same body whatever was wrong
 * (no header, another scheme, a wrong token), so a caller learns nothing about the token from the answer.
 *
 * <p>Tokens are compared as SHA-256 digests with {@link MessageDigest#isEqual}, which takes the same time wherever the
 * first difference is; hashing first also hides the token's length.
 */
final class BearerAuth implements Handler {

    private static final String SCHEME = "Bearer ";

    private final byte[] expected;

    BearerAuth(String token) {
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("the API token must not be blank");
        }
        this.expected = sha256(token);
    }

    @Override
    public void handle(Context ctx) {
        if (!LeaderGate.isWrite(ctx.method().name()) || accepts(ctx.header("Authorization"))) {
            return;
        }
        ctx.header("WWW-Authenticate", "Bearer");
        ApiJson.send(ctx, 401, ApiJson.error("unauthorized", "Authentication required"));
        ctx.skipRemainingHandlers();
    }

    boolean accepts(String authorization) {
        if (authorization == null || authorization.length() <= SCHEME.length()
                || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return false;
        }
        return MessageDigest.isEqual(sha256(authorization.substring(SCHEME.length()).strip()), expected);
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}

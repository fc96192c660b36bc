package dev.baton.server.internal.api;

import io.javalin.http.Context;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Checks every request before any route sees it, so that what a route reads is what the client meant.
 *
 * <ul>
 *   <li>{@code X-HTTP-Method-Override} is refused with {@code 400}: Javalin would otherwise route a {@code GET} that
 *       carries {@code X-HTTP-Method-Override: DELETE} as a {@code DELETE}, while every proxy, cache and the shipped
 *       nginx configuration treat it as the read it says it is.</li>
 *   <li>The raw path must percent-decode to valid UTF-8 without control characters: Javalin decodes an invalid byte
 *       such as {@code %ff} to U+FFFD, so {@code a%ffb}, {@code a%c0b} and {@code a%80b} would all name the same work
 *       item. A path parameter is decoded from the raw form, so checking the raw bytes covers every one.</li>
 * </ul>
 */
final class RequestGuards {

    /** The header Javalin's {@code Context.method()} honours. */
    static final String METHOD_OVERRIDE = "X-HTTP-Method-Override";

    private static final String ITEMS_PREFIX = "/work/items/";

    private RequestGuards() {
    }

    /** The before-handler for every path: runs first. */
    static void check(Context ctx) {
        if (ctx.req().getHeader(METHOD_OVERRIDE) != null) {
            throw new ApiProblem(400, "method_override_refused", "This API does not accept the "
                    + METHOD_OVERRIDE + " header: send the request with the method you mean");
        }
        String raw = ctx.req().getRequestURI();
        if (raw == null) {
            return;
        }
        Optional<String> problem = pathProblem(raw);
        if (problem.isEmpty()) {
            return;
        }
        if (raw.startsWith(ITEMS_PREFIX)) {
            throw ApiProblem.invalidField("invalid_item", "id", "the item id " + problem.get());
        }
        throw ApiProblem.invalidField("invalid_path", "path", "the request path " + problem.get());
    }

    /**
     * What is wrong with a raw (still percent-encoded) path, completing "the path ...": not valid UTF-8 once decoded,
     * a stray {@code %}, or a control character; empty if nothing is.
     */
    static Optional<String> pathProblem(String raw) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c != '%') {
                if (c >= 0x80) {
                    byte[] encoded = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                    bytes.write(encoded, 0, encoded.length);
                } else {
                    bytes.write(c);
                }
                continue;
            }
            int high = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
            int low = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 2), 16) : -1;
            if (high < 0 || low < 0) {
                return Optional.of("has a '%' that is not followed by two hex digits");
            }
            bytes.write(high * 16 + low);
            i += 2;
        }
        String decoded;
        try {
            decoded = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            return Optional.of("is not valid UTF-8 once percent-decoded (a %XX byte sequence that no UTF-8 text"
                    + " encodes, e.g. %ff, %c0 or a lone %80)");
        }
        if (decoded.chars().anyMatch(Character::isISOControl)) {
            return Optional.of("contains a control character (%00-%1f, %7f or %c2%80-%c2%9f)");
        }
        return Optional.empty();
    }
}

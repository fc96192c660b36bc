package dev.baton.http;

import dev.baton.core.Election;
import io.javalin.http.Context;
import io.javalin.http.Handler;

/**
 * Leader-only writes for a Javalin app: a before-handler that lets writes through on the leader and answers them on
 * any other node as {@link LeaderGate} decides (503 with the leader's id and URL, or a 307 to the leader). Reads
 * ({@code GET}, {@code HEAD}, {@code OPTIONS}) always pass, so one handler can guard a whole path.
 *
 * <pre>{@code
 * Javalin app = Javalin.create();
 * app.before("/orders/*", LeaderOnly.handler(election, LeaderGate.Mode.FAILOVER));
 * app.post("/orders/{id}", ctx -> ...);   // runs on the leader only; fence its writes with the term
 * }</pre>
 *
 * <p>A refused request ends in the before-handler ({@code skipRemainingHandlers}): its endpoint handler does not run.
 */
public final class LeaderOnly {

    private LeaderOnly() {
    }

    /** A before-handler for {@code election}'s group, answering followers' writes in {@code mode}. */
    public static Handler handler(Election election, LeaderGate.Mode mode) {
        return handler(new LeaderGate(election, mode));
    }

    /** A before-handler that asks {@code gate}. */
    public static Handler handler(LeaderGate gate) {
        return ctx -> {
            if (!LeaderGate.isWrite(ctx.method().name())) {
                return;
            }
            LeaderGate.Verdict verdict = gate.check(pathAndQuery(ctx));
            if (!verdict.passes()) {
                answer(ctx, verdict);
                ctx.skipRemainingHandlers();
            }
        };
    }

    /** Writes a refusal: status, headers and the JSON body. */
    public static void answer(Context ctx, LeaderGate.Verdict verdict) {
        verdict.headers().forEach(ctx::header);
        ctx.status(verdict.status()).contentType("application/json").result(verdict.body());
    }

    /** The request's raw path and query, as a redirect to the leader repeats them. */
    public static String pathAndQuery(Context ctx) {
        String query = ctx.queryString();
        String path = ctx.req().getRequestURI();
        return query == null || query.isEmpty() ? path : path + "?" + query;
    }
}

package dev.baton.server.internal.api;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.concurrent.Semaphore;
import org.eclipse.jetty.http.BadMessageException;

/**
 * Reads request bodies, a bounded number at a time. Reading a body blocks a server thread until the client has sent
 * it; a client that sends its headers and then dribbles the body would hold that thread for as long as it likes. So at
 * most {@value #MAX_BODIES_IN_FLIGHT} bodies are read at once (a request beyond that is answered {@code 503 busy} at
 * once, without reading its body), and Jetty ends a body that arrives slower than
 * {@value NodeApi#MIN_BODY_BYTES_PER_SECOND} bytes per second with {@code 408}: the other server threads stay free
 * for reads such as {@code /cluster/health}.
 */
final class RequestBodies {

    /** How many request bodies are read at the same time, at most. */
    static final int MAX_BODIES_IN_FLIGHT = 8;

    private final Semaphore inFlight = new Semaphore(MAX_BODIES_IN_FLIGHT);

    /**
     * The body, at most {@link NodeApi#MAX_BODY_BYTES}: declared larger, or turning out larger, is a 413.
     *
     * @throws ApiProblem 503 if {@value #MAX_BODIES_IN_FLIGHT} bodies are being read already, 408 if the body
     *                    arrives too slowly, 413 if it is too large
     */
    byte[] read(Context ctx) {
        if (ctx.req().getContentLengthLong() > NodeApi.MAX_BODY_BYTES) {
            throw tooLarge();
        }
        if (!inFlight.tryAcquire()) {
            throw new ApiProblem(503, "busy", "The node is reading " + MAX_BODIES_IN_FLIGHT + " request bodies"
                    + " already; retry shortly", Map.of("Retry-After", "1", "Connection", "close"));
        }
        try {
            InputStream in = ctx.req().getInputStream();
            byte[] body = in.readNBytes(NodeApi.MAX_BODY_BYTES + 1);
            if (body.length > NodeApi.MAX_BODY_BYTES) {
                throw tooLarge();
            }
            return body;
        } catch (BadMessageException e) {
            // Jetty's minimum data rate or idle timeout on the body: the client is too slow (or gone).
            throw new ApiProblem(408, "request_timeout", "The request body arrived too slowly (less than "
                    + NodeApi.MIN_BODY_BYTES_PER_SECOND + " bytes per second, or a pause longer than "
                    + NodeApi.IO_IDLE_TIMEOUT.toSeconds() + " s)", Map.of("Connection", "close"));
        } catch (IOException e) {
            throw new ApiProblem(400, "bad_request", "The request body could not be read (the client was too slow"
                    + " or closed the connection)", Map.of("Connection", "close"));
        } finally {
            inFlight.release();
        }
    }

    private static ApiProblem tooLarge() {
        return new ApiProblem(413, "payload_too_large",
                "The request body is larger than " + NodeApi.MAX_BODY_BYTES + " bytes", Map.of("Connection", "close"));
    }
}

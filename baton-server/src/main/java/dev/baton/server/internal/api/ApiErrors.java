package dev.baton.server.internal.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every error the API answers is {@code {"error": code, "message": text}} with a JSON content type, whoever produced
 * it: a route ({@link ApiProblem}), Javalin (unknown route, wrong method, body too large) or Jetty itself (a request it
 * could not parse). A failure inside the node is logged with its stack trace and answered with a fixed message: a
 * response never carries an exception's text or trace, which could leak internals.
 */
final class ApiErrors {

    private static final Logger log = LoggerFactory.getLogger(ApiErrors.class);

    private ApiErrors() {
    }

    /** Makes Jetty's own error pages (malformed requests, failures outside Javalin) JSON too. */
    static void configure(JavalinConfig config) {
        config.jetty.modifyServer(server -> server.setErrorHandler(new JsonErrorHandler()));
        config.jetty.modifyServletContextHandler(context -> context.setErrorHandler(new JsonErrorHandler()));
    }

    /** Maps route and framework exceptions to JSON answers. */
    static void install(Javalin app) {
        app.exception(ApiProblem.class, (problem, ctx) -> {
            problem.headers().forEach(ctx::header);
            ObjectNode body = ApiJson.error(problem.error(), problem.getMessage());
            if (problem.field() != null) {
                body.put("field", problem.field());
            }
            ApiJson.send(ctx, problem.status(), body);
        });
        app.exception(HttpResponseException.class, ApiErrors::frameworkError);
        app.exception(Exception.class, (e, ctx) -> {
            log.error("{} {} failed", ctx.method(), ctx.path(), e);
            ApiJson.send(ctx, 500, ApiJson.error("internal_error",
                    "The node failed to handle the request; its log has the details"));
        });
    }

    private static void frameworkError(HttpResponseException e, Context ctx) {
        int status = e.getStatus();
        String message = switch (status) {
            case 404 -> "No such resource: " + ctx.method() + " " + ctx.path();
            case 405 -> "Method " + ctx.method() + " is not allowed on " + ctx.path();
            case 413 -> "The request body is larger than " + NodeApi.MAX_BODY_BYTES + " bytes";
            default -> e.getMessage();
        };
        String allowed = e.getDetails().get("availableMethods");
        if (status == 405 && allowed != null) {
            ctx.header("Allow", allowed);
        }
        ApiJson.send(ctx, status, ApiJson.error(code(status), message));
    }

    /** A stable error code for a status: {@code not_found}, {@code method_not_allowed}, ... */
    static String code(int status) {
        return switch (status) {
            case 400 -> "bad_request";
            case 401 -> "unauthorized";
            case 403 -> "forbidden";
            case 404 -> "not_found";
            case 405 -> "method_not_allowed";
            case 408 -> "request_timeout";
            case 413 -> "payload_too_large";
            case 414 -> "uri_too_long";
            case 415 -> "unsupported_media_type";
            case 431 -> "headers_too_large";
            case 500 -> "internal_error";
            case 503 -> "unavailable";
            default -> "http_" + status;
        };
    }

    /** Jetty's error output, as JSON with a fixed message per status (never an exception's text). */
    private static final class JsonErrorHandler extends ErrorHandler {

        JsonErrorHandler() {
            setShowStacks(false);
            setShowServlet(false);
        }

        @Override
        protected void generateAcceptableResponse(Request baseRequest, HttpServletRequest request,
                HttpServletResponse response, int code, String message) throws IOException {
            byte[] body = json(code, HttpStatus.getMessage(code));
            response.setContentType(ApiJson.CONTENT_TYPE);
            response.setContentLength(body.length);
            response.getOutputStream().write(body);
            baseRequest.setHandled(true);
        }

        /** A request Jetty could not parse: its reason names the HTTP-level problem and nothing of the node's. */
        @Override
        public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
            fields.put(new HttpField(HttpHeader.CONTENT_TYPE, ApiJson.CONTENT_TYPE));
            return ByteBuffer.wrap(json(status, reason == null ? HttpStatus.getMessage(status) : reason));
        }

        private static byte[] json(int status, String message) {
            ObjectNode body = ApiJson.error(code(status), message);
            return body.toString().getBytes(StandardCharsets.UTF_8);
        }
    }
}

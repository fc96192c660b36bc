package dev.baton.server.internal.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.server.internal.api.HttpCalls.Reply;
import io.javalin.Javalin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A handler that fails is answered with a fixed JSON message: never the exception's text, never a stack trace. */
class ApiErrorsTest {

    private Javalin app;

    @AfterEach
    void stop() {
        app.stop();
    }

    @Test
    void aFailingHandlerLeaksNothing() {
        app = Javalin.create(config -> {
            config.showJavalinBanner = false;
            ApiErrors.configure(config);
        });
        ApiErrors.install(app);
        app.get("/boom", ctx -> {
            throw new IllegalStateException("password=hunter2 at db.internal:5432");
        });
        app.get("/problem", ctx -> {
            throw new ApiProblem(409, "conflict", "Already there");
        });
        app.start("127.0.0.1", 0);

        Reply boom = HttpCalls.get("http://127.0.0.1:" + app.port() + "/boom");
        Reply problem = HttpCalls.get("http://127.0.0.1:" + app.port() + "/problem");

        assertThat(boom.status()).isEqualTo(500);
        assertThat(boom.header("Content-Type")).startsWith("application/json");
        assertThat(boom.json().path("error").asText()).isEqualTo("internal_error");
        assertThat(boom.body()).doesNotContain("hunter2").doesNotContain("IllegalStateException")
                .doesNotContain("\tat ").doesNotContain("db.internal");
        assertThat(problem.status()).isEqualTo(409);
        assertThat(problem.json().path("error").asText()).isEqualTo("conflict");
        assertThat(problem.json().path("message").asText()).isEqualTo("Already there");
    }
}

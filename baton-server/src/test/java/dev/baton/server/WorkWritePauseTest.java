package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.core.store.FencedMapWrite;
import dev.baton.core.time.Clock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The {@code pause-after-fenced-write} switch, with a counter in place of the SIGSTOP. */
class WorkWritePauseTest {

    private static final String ACTUAL = "baton:g:worker:actual_subscriptions";
    private static final byte[] PENDING = "{\"status\":\"pending\"}".getBytes(StandardCharsets.UTF_8);
    private static final byte[] ACTIVE = "{\"status\":\"active\"}".getBytes(StandardCharsets.UTF_8);

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final AtomicInteger stops = new AtomicInteger();
    private boolean accept = true;
    private final WorkWritePause pause = new WorkWritePause(new FixedAnswerMaps(() -> accept),
            new EventJson("n1"), new JsonLines(new ObjectMapper(), new PrintStream(out, true, StandardCharsets.UTF_8)),
            Clock.system(), stops::incrementAndGet);

    @Test
    void anArmedNodeStopsOnceAfterTheNextAcceptedAssignmentWrite() {
        pause.arm();
        put("other:map", PENDING);
        put(ACTUAL, ACTIVE);
        assertThat(stops).hasValue(0);

        put(ACTUAL, PENDING);
        put(ACTUAL, PENDING);

        assertThat(stops).hasValue(1);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("\"command\":\"pause-after-fenced-write\"",
                "\"item\":\"t1-1\"", "\"term\":7");
        assertThat(pause.withdraw()).isFalse();
    }

    @Test
    void aRefusedWriteDoesNotStopItAndWithdrawDisarms() {
        pause.arm();
        accept = false;
        put(ACTUAL, PENDING);
        assertThat(stops).hasValue(0);

        assertThat(pause.withdraw()).isTrue();
        accept = true;
        put(ACTUAL, PENDING);
        assertThat(stops).hasValue(0);
    }

    @Test
    void unarmedItOnlyPassesWritesOn() {
        assertThat(put(ACTUAL, PENDING).accepted()).isTrue();
        assertThat(stops).hasValue(0);
    }

    private FencedMapWrite put(String map, byte[] value) {
        return pause.fencedPut("g", map, "t1-1", "n1", 7, value).join();
    }
}

package dev.baton.server.chaos;

import static dev.baton.server.chaos.Events.acquired;
import static dev.baton.server.chaos.Events.crash;
import static dev.baton.server.chaos.Events.fault;
import static dev.baton.server.chaos.Events.itemOk;
import static dev.baton.server.chaos.Events.itemUnknown;
import static dev.baton.server.chaos.Events.lost;
import static dev.baton.server.chaos.Events.ok;
import static dev.baton.server.chaos.Events.pause;
import static dev.baton.server.chaos.Events.read;
import static dev.baton.server.chaos.Events.trial;
import static dev.baton.server.chaos.Events.unknown;
import static dev.baton.server.chaos.Events.validUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.server.chaos.HistoryEvent.Acquired;
import dev.baton.server.chaos.HistoryEvent.Outcome;
import dev.baton.server.chaos.HistoryEvent.Trial;
import dev.baton.server.chaos.HistoryEvent.ValidUntil;
import dev.baton.server.chaos.HistoryEvent.Write;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HistoryJsonTest {

    @TempDir
    Path dir;

    @Test
    void eachEventIsOneLineWithItsTypeFirst() {
        assertThat(History.toJson(new Acquired(3, "n1", 123, 10, 20)))
                .isEqualTo("{\"type\":\"acquired\",\"trial\":3,\"node\":\"n1\",\"term\":123,\"since\":10,\"mono\":20}");
        assertThat(History.toJson(new ValidUntil(3, "n1", 123, 3_000_000_000L, 25)))
                .isEqualTo("{\"type\":\"valid-until\",\"trial\":3,\"node\":\"n1\",\"term\":123,"
                        + "\"deadline\":3000000000,\"mono\":25}");
        assertThat(History.toJson(new Write(3, "n1", 123, 17, 5, null, Outcome.UNKNOWN)))
                .isEqualTo("{\"type\":\"write\",\"trial\":3,\"node\":\"n1\",\"term\":123,\"seq\":17,\"sent\":5,"
                        + "\"answered\":null,\"outcome\":\"unknown\"}");
        assertThat(History.toJson(new Trial(3, FaultKind.KILL_NODE, false, 1, 2, 3, null, 4000)))
                .isEqualTo("{\"type\":\"trial\",\"trial\":3,\"fault\":\"kill-node\",\"dataLoss\":false,\"start\":1,"
                        + "\"healed\":2,\"end\":3,\"leaderAt\":null,\"boundMs\":4000}");
    }

    @Test
    void everyKindOfEventSurvivesTheFile() {
        History history = History.of(
                trial(1, FaultKind.STORE_BLACKHOLE, 0, 500, 6000, 900.0),
                acquired(1, "n1", 7, 1, 2),
                validUntil(1, "n1", 7, 250, 2),
                lost(1, "n1", 7, 300),
                ok(1, "n1", 7, 1, 3, 4),
                unknown(1, "n1", 7, 2, 5),
                itemOk(1, "t1-1", "v1", 6, 7),
                itemUnknown(1, "t1-1", "v2", 8),
                read(1, "t1-1", null, 5000),
                crash(1, "n2", 10),
                pause(1, "n3", 11, 12),
                fault(1, FaultKind.STORE_BLACKHOLE, "n1", 100, 500),
                fault(1, FaultKind.PARTITION_TWO, null, 100, 500));
        Path file = dir.resolve("history.jsonl");

        history.writeTo(file);

        assertThat(History.read(file).events()).isEqualTo(history.events());
    }

    @Test
    void readsTheDocumentedFormat() throws IOException {
        Path file = dir.resolve("history.jsonl");
        Files.writeString(file, """
                {"type":"acquired","trial":3,"node":"n1","term":123,"since":100,"mono":200}
                {"type":"valid-until","trial":3,"node":"n1","term":123,"deadline":290,"mono":199}
                {"type":"lost","trial":3,"node":"n1","term":123,"reason":"EXPIRED_LOCALLY","mono":300}

                {"type":"write","trial":3,"node":"n1","term":123,"seq":17,"sent":210,"answered":null,"outcome":"unknown"}
                {"type":"item-write","trial":3,"node":"n1","id":"t3-1","value":"v1","sent":220,"answered":230,"outcome":"ok"}
                {"type":"item-read","trial":3,"id":"t3-1","value":null,"mono":900}
                {"type":"crash","trial":3,"node":"n2","mono":400}
                {"type":"pause","trial":3,"node":"n2","start":410,"end":420}
                {"type":"fault","trial":3,"fault":"store-blackhole","target":null,"start":430,"end":440}
                {"type":"trial","trial":3,"fault":"kill-node","dataLoss":false,"start":50,"healed":450,"end":1000,"leaderAt":460,"boundMs":4000}
                """, StandardCharsets.UTF_8);

        History history = History.read(file);

        assertThat(history.events()).hasSize(10);
        assertThat(history.eventsOf(Acquired.class)).containsExactly(new Acquired(3, "n1", 123, 100, 200));
        assertThat(history.eventsOf(ValidUntil.class)).containsExactly(new ValidUntil(3, "n1", 123, 290, 199));
        assertThat(history.eventsOf(Trial.class).get(0).leaderAt()).isEqualTo(460L);
    }

    @Test
    void aBadLineIsNamedWithItsNumberAndProblem() throws IOException {
        Path file = dir.resolve("history.jsonl");
        String good = "{\"type\":\"crash\",\"trial\":1,\"node\":\"n2\",\"mono\":400}\n";
        assertReadFails(file, good + "{\"type\":\"fault\",\"trial\":1,\"fault\":\"meteor\",\"target\":null,"
                + "\"start\":1,\"end\":2}\n", ":2: unknown fault kind 'meteor'");
        assertReadFails(file, good + good + "{\"type\":\"nap\",\"trial\":1}\n",
                ":3: unknown event type 'nap' (known: acquired, crash, fault");
        assertReadFails(file, "{\"trial\":1}\n", ":1: the event has no type");
        assertReadFails(file, "{\"type\":\"crash\",\"trial\":1,\"mono\":400}\n", ":1: crash: missing field 'node'");
        assertReadFails(file, "{\"type\":\"pause\",\"trial\":1,\"node\":\"n1\",\"start\":9,\"end\":2}\n",
                ":1: pause: times out of order");
        assertReadFails(file, "{\"type\":\"write\",\"trial\":1,\"node\":\"n1\",\"term\":1,\"seq\":1,\"sent\":1,"
                + "\"answered\":null,\"outcome\":\"ok\"}\n", ":1: write: outcome ok needs an answered time");
        assertReadFails(file, "not json\n", ":1: ");
    }

    @Test
    void aMissingFileIsNamed() {
        Path missing = dir.resolve("nowhere.jsonl");
        assertThatThrownBy(() -> History.read(missing))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessage("no chaos history at " + missing);
    }

    @Test
    void appendsFromManyThreadsAreAllKept() throws Exception {
        History history = new History();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int thread = 0; thread < 4; thread++) {
                String node = "n" + thread;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 1000; i++) {
                        history.append(new HistoryEvent.Crash(1, node, i));
                    }
                }));
            }
            for (Future<?> future : done) {
                future.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(history.events()).hasSize(4000);
    }

    private static void assertReadFails(Path file, String content, String expected) throws IOException {
        Files.writeString(file, content, StandardCharsets.UTF_8);
        assertThatThrownBy(() -> History.read(file))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(file.toString())
                .hasMessageContaining(expected)
                .satisfies(error -> assertThat(error.getMessage()).doesNotContain("\n"));
    }
}

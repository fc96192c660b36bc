package dev.baton.server.chaos;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.exc.InvalidTypeIdException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Everything the chaos harness saw during a run, in the order it was recorded. Append-only; {@link #append} may be
 * called from any thread (the harness records node events, client calls and faults on different threads). The order
 * of events in the history carries no meaning: the checkers use the events' times.
 *
 * <p>On disk a history is a JSON-lines file, one {@link HistoryEvent} per line, written by {@link #writeTo} and read
 * back by {@link #read}.
 */
final class History {

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    private static final ObjectWriter WRITER = MAPPER.writerFor(HistoryEvent.class);
    private static final ObjectReader READER = MAPPER.readerFor(HistoryEvent.class);

    /** The types of {@link HistoryEvent.GroupEvent}, whose {@code group} a run of one group leaves out. */
    private static final Set<String> GROUP_EVENTS = Set.of("acquired", "lost", "valid-until", "write");
    private static final Pattern MISSING_FIELD = Pattern.compile("Missing creator property '([^']*)'");
    private static final String KNOWN_TYPES = Arrays.stream(HistoryEvent.class.getAnnotation(JsonSubTypes.class)
            .value()).map(JsonSubTypes.Type::name).sorted().collect(Collectors.joining(", "));

    private final List<HistoryEvent> events = new ArrayList<>();

    /** An empty history. */
    History() {
    }

    /** A history holding {@code events}, in that order. */
    static History of(HistoryEvent... events) {
        return of(Arrays.asList(events));
    }

    /** A history holding {@code events}, in that order. */
    static History of(List<? extends HistoryEvent> events) {
        History history = new History();
        events.forEach(history::append);
        return history;
    }

    /** Records {@code event}. */
    synchronized void append(HistoryEvent event) {
        if (event == null) {
            throw new NullPointerException("event");
        }
        events.add(event);
    }

    /** A snapshot of the events recorded so far, in the order they were appended. */
    synchronized List<HistoryEvent> events() {
        return List.copyOf(events);
    }

    /** The recorded events of one kind, in the order they were appended. */
    <T extends HistoryEvent> List<T> eventsOf(Class<T> kind) {
        List<T> matching = new ArrayList<>();
        for (HistoryEvent event : events()) {
            if (kind.isInstance(event)) {
                matching.add(kind.cast(event));
            }
        }
        return matching;
    }

    /**
     * One election group's part of a history: the group's leadership events ({@link HistoryEvent.GroupEvent}) and
     * every event that belongs to no group (trials, faults, crashes, pauses, items, workers).
     *
     * @param name the group; null in a run of one group
     */
    record Group(String name, History history) {
    }

    /**
     * The history split by election group: the group the harness drives ({@link ChaosRun#GROUP}) first, the others in
     * the order they first appear; a history without a group on its events (a run of one group) is one part, named
     * null, holding every event. A checker that reasons about leaders
     * runs on each part, so that its state is keyed by (group, node): leaders of different groups at the same instant
     * are no overlap, and terms of different groups are never compared.
     */
    List<Group> groups() {
        List<HistoryEvent> all = events();
        List<HistoryEvent> shared = new ArrayList<>();
        Map<String, List<HistoryEvent>> own = new LinkedHashMap<>();
        if (all.stream().anyMatch(event -> event instanceof HistoryEvent.GroupEvent grouped
                && ChaosRun.GROUP.equals(grouped.group()))) {
            own.put(ChaosRun.GROUP, new ArrayList<>());
        }
        for (HistoryEvent event : all) {
            if (event instanceof HistoryEvent.GroupEvent grouped) {
                own.computeIfAbsent(grouped.group(), group -> new ArrayList<>());
            }
        }
        if (own.size() <= 1) {
            return List.of(new Group(own.isEmpty() ? null : own.keySet().iterator().next(), this));
        }
        List<Group> groups = new ArrayList<>();
        for (String group : own.keySet()) {
            List<HistoryEvent> part = new ArrayList<>();
            for (HistoryEvent event : all) {
                if (!(event instanceof HistoryEvent.GroupEvent grouped) || Objects.equals(grouped.group(), group)) {
                    part.add(event);
                }
            }
            groups.add(new Group(group, of(part)));
        }
        return groups;
    }

    /**
     * The part of the group the harness drives its hand-overs and aimed faults at ({@link ChaosRun#GROUP}), the first
     * of {@link #groups()}; the whole history in a run of one group.
     */
    History drivenGroup() {
        return groups().get(0).history();
    }

    /** Writes the history to {@code file} as JSON lines, replacing the file if it exists. */
    void writeTo(Path file) {
        try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (HistoryEvent event : events()) {
                out.write(toJson(event));
                out.write('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the chaos history to " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads a history written by {@link #writeTo}. Blank lines are skipped.
     *
     * @throws IllegalArgumentException for a malformed line, naming the file, the line number and the problem
     * @throws UncheckedIOException if the file cannot be read
     */
    static History read(Path file) {
        History history = new History();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            int number = 0;
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                number++;
                if (!line.isBlank()) {
                    history.append(parseLine(file, number, line));
                }
            }
        } catch (NoSuchFileException e) {
            throw new UncheckedIOException("no chaos history at " + file, e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the chaos history " + file + ": " + e.getMessage(), e);
        }
        return history;
    }

    /** One event as a single line of JSON (without the newline). */
    static String toJson(HistoryEvent event) {
        try {
            return WRITER.writeValueAsString(event);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + event + " as JSON", e);
        }
    }

    private static HistoryEvent parseLine(Path file, int number, String line) {
        String type = "event";
        try {
            JsonNode tree = MAPPER.readTree(line);
            type = tree.path("type").asText(type);
            if (GROUP_EVENTS.contains(type) && tree instanceof ObjectNode object && !object.has("group")) {
                object.putNull("group"); // a run of one group leaves it out
            }
            return READER.readValue(tree);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(file + ":" + number + ": " + problem(e, type), e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The event's own complaint about its fields, or Jackson's message without its location dump. */
    private static String problem(JsonProcessingException e, String type) {
        Throwable cause = e.getCause();
        if (e instanceof JsonMappingException && cause instanceof IllegalArgumentException
                && cause.getMessage() != null) {
            return cause.getMessage();
        }
        if (e instanceof InvalidTypeIdException invalid) {
            return invalid.getTypeId() == null ? "the event has no type"
                    : "unknown event type '" + invalid.getTypeId() + "' (known: " + KNOWN_TYPES + ")";
        }
        String message = e.getOriginalMessage();
        Matcher missing = MISSING_FIELD.matcher(message);
        if (missing.lookingAt()) {
            return type + ": missing field '" + missing.group(1) + "'";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    @Override
    public synchronized String toString() {
        return "History[" + events.size() + " events]";
    }
}

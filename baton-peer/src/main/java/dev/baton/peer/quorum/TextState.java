package dev.baton.peer.quorum;

import dev.baton.peer.transport.PeerAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The text form of an {@link AcceptorState}: a header line and one {@code name=value} line per field. It is the
 * payload of every vote-log record, and was the whole state file of earlier versions, which {@link FileDurableState}
 * still reads.
 */
final class TextState {

    static final String HEADER = "baton-quorum-state 1";
    private static final String NONE = "-";
    private static final byte[] HEADER_LINE = (HEADER + "\n").getBytes(StandardCharsets.UTF_8);

    private TextState() {
    }

    /** Whether {@code start}, the first bytes of a file, begins with the header: a state file of earlier versions. */
    static boolean isTextFile(byte[] start) {
        return start.length >= HEADER_LINE.length
                && Arrays.equals(start, 0, HEADER_LINE.length, HEADER_LINE, 0, HEADER_LINE.length);
    }

    static String format(AcceptorState s) {
        return HEADER + "\n"
                + "highestVersion=" + s.highestVersion() + "\n"
                + "barrier=" + s.barrier() + "\n"
                + "recovered=" + s.recovered() + "\n"
                + "instance=" + s.instance() + "\n"
                + "promised=" + ballot(s.promised()) + "\n"
                + "acceptedBallot=" + ballot(s.acceptedBallot()) + "\n"
                + "acceptedCandidate=" + (s.acceptedCandidate() == null ? NONE : s.acceptedCandidate().format())
                + "\n"
                + "lastLed=" + s.lastLed() + "\n";
    }

    static AcceptorState parse(List<String> lines) {
        if (lines.isEmpty() || !lines.get(0).equals(HEADER)) {
            throw new IllegalArgumentException("first line is not '" + HEADER + "'");
        }
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            if (line.isEmpty()) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq < 0 || fields.put(line.substring(0, eq), line.substring(eq + 1)) != null) {
                throw new IllegalArgumentException("bad or repeated line '" + line + "'");
            }
        }
        String candidate = field(fields, "acceptedCandidate");
        AcceptorState state = new AcceptorState(
                Long.parseLong(field(fields, "highestVersion")),
                Long.parseLong(field(fields, "barrier")),
                parseBoolean(field(fields, "recovered")),
                Long.parseLong(field(fields, "instance")),
                parseBallot(field(fields, "promised")),
                parseBallot(field(fields, "acceptedBallot")),
                candidate.equals(NONE) ? null : PeerAddress.parse(candidate),
                Long.parseLong(field(fields, "lastLed")));
        if (!fields.isEmpty()) {
            throw new IllegalArgumentException("unknown fields " + fields.keySet());
        }
        return state;
    }

    private static String field(Map<String, String> fields, String name) {
        String value = fields.remove(name);
        if (value == null) {
            throw new IllegalArgumentException("missing " + name);
        }
        return value;
    }

    private static boolean parseBoolean(String text) {
        return switch (text) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("not a boolean: " + text);
        };
    }

    private static String ballot(Ballot b) {
        return b == null ? NONE : b.version() + " " + b.round() + " " + b.proposer().format();
    }

    private static Ballot parseBallot(String text) {
        if (text.equals(NONE)) {
            return null;
        }
        String[] parts = text.split(" ");
        if (parts.length != 3) {
            throw new IllegalArgumentException("bad ballot '" + text + "'");
        }
        return new Ballot(Long.parseLong(parts[0]), Long.parseLong(parts[1]), PeerAddress.parse(parts[2]));
    }
}

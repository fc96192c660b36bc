package dev.baton.work;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What is wrong with a body Jackson could not read, said in a few words a client can act on: Jackson's own messages
 * name its classes and features ({@code DeserializationFeature.FAIL_ON_TRAILING_TOKENS}), echo source excerpts and
 * token types, none of which belong in an answer to a client.
 */
final class JsonProblem {

    private static final Pattern UNEXPECTED_CHARACTER = Pattern.compile("Unexpected character \\(.*?\\(code (\\d+)");
    private static final Pattern DUPLICATE_FIELD = Pattern.compile("Duplicate field '(.{1,64})'");

    private JsonProblem() {
    }

    /** E.g. {@code the body is not one JSON object: unexpected text after it at line 1, column 12}. */
    static String describe(JsonProcessingException e) {
        return "the body is not one JSON object: " + problem(e) + where(e.getLocation());
    }

    private static String problem(JsonProcessingException e) {
        String message = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
        if (e instanceof JsonEOFException || message.startsWith("Unexpected end-of-input")) {
            return "it ends too early (an object, array or string is not closed)";
        }
        if (e instanceof StreamConstraintsException) {
            return "it is nested too deeply, or holds a number or string that is too long";
        }
        if (message.startsWith("Trailing token")) {
            return "unexpected text after it";
        }
        Matcher duplicate = DUPLICATE_FIELD.matcher(message);
        if (duplicate.lookingAt()) {
            return "the field '" + duplicate.group(1) + "' appears twice";
        }
        Matcher character = UNEXPECTED_CHARACTER.matcher(message);
        if (character.lookingAt()) {
            int code = Integer.parseInt(character.group(1));
            return "unexpected character " + (code > 0x20 && code < 0x7f ? "'" + (char) code + "'"
                    : String.format("U+%04X", code));
        }
        if (message.startsWith("Unrecognized token")) {
            return "unexpected text where a value belongs (strings need double quotes; the words are true, false"
                    + " and null)";
        }
        if (message.startsWith("Invalid UTF-8") || message.contains("Invalid UTF-8")) {
            return "it is not valid UTF-8";
        }
        if (message.startsWith("Illegal unquoted character") || message.startsWith("Illegal character")) {
            return "a control character inside a string must be escaped";
        }
        if (message.contains("numeric value") || message.contains("Numeric value")
                || message.contains("Leading zeroes")) {
            return "a malformed or out-of-range number";
        }
        return "it is not valid JSON";
    }

    private static String where(JsonLocation location) {
        if (location == null || location.getLineNr() < 1) {
            return "";
        }
        return " at line " + location.getLineNr() + ", column " + location.getColumnNr();
    }
}

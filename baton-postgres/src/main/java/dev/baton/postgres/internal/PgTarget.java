package dev.baton.postgres.internal;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Where a store connects: hosts, database, credentials and extra driver properties, parsed from either URI form the
 * options accept. The password is kept here and nowhere else; {@link #toString()}, {@link #describe} and every
 * message built from a target leave it out.
 *
 * @param authority  {@code host:port}, or several separated by commas (pgjdbc's multi-host form)
 * @param database   the database name
 * @param user       the user, or {@code null} if none was given
 * @param password   the password, or {@code null}
 * @param schema     the {@code schema} parameter of the URI, or {@code null}
 * @param properties other URI parameters, passed to pgjdbc as connection properties
 */
public record PgTarget(String authority, String database, String user, String password, String schema,
        Map<String, String> properties) {

    private static final int DEFAULT_PORT = 5432;
    /** pgjdbc's parameter that picks which of several hosts to use. */
    static final String TARGET_SERVER_TYPE = "targetServerType";
    private static final String FORM = "postgresql://USER[:PASSWORD]@HOST[:PORT]/DB[?schema=NAME]";

    public PgTarget {
        properties = Map.copyOf(properties);
    }

    /**
     * Parses {@code postgresql://USER[:PASSWORD]@HOST[:PORT]/DB[?schema=NAME&…]} (also {@code postgres://}) or
     * {@code jdbc:postgresql://HOST[:PORT]/DB?user=…&password=…}. User, password and parameter values may be
     * percent-encoded. Several hosts ({@code h1:p1,h2:p2}) default to {@code targetServerType=primary}: every lease
     * call writes, so the store must reach the writable server whichever host that is now, e.g. a standby promoted
     * after the primary failed.
     *
     * @throws IllegalArgumentException naming {@code field} and quoting the URI without its credentials
     */
    public static PgTarget parse(String uri, String field) {
        String rest;
        boolean jdbc = false;
        if (uri.startsWith("postgresql://")) {
            rest = uri.substring("postgresql://".length());
        } else if (uri.startsWith("postgres://")) {
            rest = uri.substring("postgres://".length());
        } else if (uri.startsWith("jdbc:postgresql://")) {
            rest = uri.substring("jdbc:postgresql://".length());
            jdbc = true;
        } else {
            throw new IllegalArgumentException(field + " must start with postgresql:// or jdbc:postgresql://, e.g. "
                    + FORM + "; was " + withoutCredentials(uri));
        }
        int query = rest.indexOf('?');
        String main = query < 0 ? rest : rest.substring(0, query);
        Map<String, String> params = query < 0 ? new LinkedHashMap<>() : params(rest.substring(query + 1), field, uri);
        String user = null;
        String password = null;
        int at = main.lastIndexOf('@');
        if (at >= 0) {
            if (jdbc) {
                throw new IllegalArgumentException(field + ": a jdbc:postgresql:// URL takes credentials as "
                        + "?user=…&password=… parameters, not before the host; was " + withoutCredentials(uri));
            }
            String userInfo = main.substring(0, at);
            int colon = userInfo.indexOf(':');
            user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon), field, uri);
            password = colon < 0 ? null : decode(userInfo.substring(colon + 1), field, uri);
            main = main.substring(at + 1);
        }
        int slash = main.indexOf('/');
        if (slash < 0 || slash == main.length() - 1) {
            throw new IllegalArgumentException(field + " names no database, expected " + FORM + "; was "
                    + withoutCredentials(uri));
        }
        String authority = authority(main.substring(0, slash), field, uri);
        String database = decode(main.substring(slash + 1), field, uri);
        String paramUser = params.remove("user");
        String paramPassword = params.remove("password");
        String schema = params.remove("schema");
        if (authority.indexOf(',') >= 0) {
            params.putIfAbsent(TARGET_SERVER_TYPE, "primary");
        }
        return new PgTarget(authority, database, user != null ? user : paramUser,
                password != null ? password : paramPassword, schema, params);
    }

    /** This target with {@code user} and {@code password} replaced where non-null. */
    public PgTarget withCredentials(String newUser, String newPassword) {
        return new PgTarget(authority, database, newUser != null ? newUser : user,
                newPassword != null ? newPassword : password, schema, properties);
    }

    /** {@code jdbc:postgresql://authority/database}; credentials and properties go separately. */
    public String jdbcUrl() {
        return "jdbc:postgresql://" + authority + "/" + encodePath(database);
    }

    /** Driver properties: the URI's extra parameters plus user and password. */
    public Properties driverProperties() {
        Properties props = new Properties();
        properties.forEach(props::setProperty);
        if (user != null) {
            props.setProperty("user", user);
        }
        if (password != null) {
            props.setProperty("password", password);
        }
        return props;
    }

    /** {@code postgresql://user@host:port/db?schema=name}: for logs and messages, never with the password. */
    public String describe(String schemaName) {
        return "postgresql://" + (user == null ? "" : user + "@") + authority + "/" + database + "?schema="
                + schemaName;
    }

    @Override
    public String toString() {
        return "PgTarget{" + (user == null ? "" : user + "@") + authority + "/" + database
                + (password == null ? "" : ", password=***") + ", properties=" + properties.keySet() + "}";
    }

    /** Drops a {@code user:password@} part and any {@code password=} parameter so a bad URI can be shown. */
    public static String withoutCredentials(String uri) {
        String text = uri;
        int start = text.indexOf("://");
        if (start >= 0) {
            int query = text.indexOf('?', start);
            int at = text.lastIndexOf('@', query < 0 ? text.length() : query);
            if (at > start) {
                text = text.substring(0, start + 3) + text.substring(at + 1);
            }
        }
        return text.replaceAll("(?i)([?&]password=)[^&]*", "$1***");
    }

    private static String authority(String hosts, String field, String uri) {
        if (hosts.isEmpty()) {
            throw new IllegalArgumentException(field + " names no host, expected " + FORM + "; was "
                    + withoutCredentials(uri));
        }
        List<String> parts = new ArrayList<>();
        for (String hostPort : hosts.split(",", -1)) {
            String host;
            String port;
            if (hostPort.startsWith("[")) {
                int close = hostPort.indexOf(']');
                if (close < 0) {
                    throw new IllegalArgumentException(field + " has an unclosed IPv6 address: "
                            + withoutCredentials(uri));
                }
                host = hostPort.substring(0, close + 1);
                String after = hostPort.substring(close + 1);
                port = after.startsWith(":") ? after.substring(1) : after;
            } else {
                int colon = hostPort.lastIndexOf(':');
                host = colon < 0 ? hostPort : hostPort.substring(0, colon);
                port = colon < 0 ? "" : hostPort.substring(colon + 1);
            }
            if (host.isEmpty() || host.equals("[]")) {
                throw new IllegalArgumentException(field + " names an empty host: " + withoutCredentials(uri));
            }
            int portNumber = DEFAULT_PORT;
            if (!port.isEmpty()) {
                try {
                    portNumber = Integer.parseInt(port);
                } catch (NumberFormatException e) {
                    portNumber = -1;
                }
                if (portNumber < 1 || portNumber > 65535) {
                    throw new IllegalArgumentException(field + " has an invalid port '" + port + "': "
                            + withoutCredentials(uri));
                }
            }
            parts.add(host + ":" + portNumber);
        }
        return String.join(",", parts);
    }

    private static Map<String, String> params(String query, String field, String uri) {
        Map<String, String> params = new LinkedHashMap<>();
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String key = decode(eq < 0 ? pair : pair.substring(0, eq), field, uri);
            String value = eq < 0 ? "" : decode(pair.substring(eq + 1), field, uri);
            params.put(key, value);
        }
        return params;
    }

    /** Percent-decoding as in URIs ({@code +} stays a plus sign, unlike form encoding). */
    private static String decode(String text, String field, String uri) {
        if (text.indexOf('%') < 0) {
            return text;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '%') {
                if (i + 2 >= text.length()) {
                    throw badEscape(field, uri);
                }
                int hi = Character.digit(text.charAt(i + 1), 16);
                int lo = Character.digit(text.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    throw badEscape(field, uri);
                }
                bytes.write(hi * 16 + lo);
                i += 2;
            } else {
                byte[] encoded = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(encoded, 0, encoded.length);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static IllegalArgumentException badEscape(String field, String uri) {
        return new IllegalArgumentException(field + " has an invalid percent-escape: " + withoutCredentials(uri));
    }

    private static String encodePath(String segment) {
        StringBuilder out = new StringBuilder();
        for (byte b : segment.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (Character.isLetterOrDigit(c) && c < 128 || c == '-' || c == '_' || c == '.' || c == '~') {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return out.toString();
    }
}

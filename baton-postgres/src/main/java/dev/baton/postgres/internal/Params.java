package dev.baton.postgres.internal;

import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Binds a prepared statement's parameters in order, so a statement's Java side reads like its {@code ?} list; and
 * reads back the few composite values Baton stores (string maps as parallel {@code text[]} arrays).
 */
final class Params {

    private final PreparedStatement statement;
    private int index;

    private Params(PreparedStatement statement) {
        this.statement = statement;
    }

    static Params of(PreparedStatement statement) {
        return new Params(statement);
    }

    Params text(String value) throws SQLException {
        if (value == null) {
            statement.setNull(++index, Types.VARCHAR);
        } else {
            statement.setString(++index, value);
        }
        return this;
    }

    Params bigint(long value) throws SQLException {
        statement.setLong(++index, value);
        return this;
    }

    Params integer(Integer value) throws SQLException {
        if (value == null) {
            statement.setNull(++index, Types.INTEGER);
        } else {
            statement.setInt(++index, value);
        }
        return this;
    }

    Params bool(boolean value) throws SQLException {
        statement.setBoolean(++index, value);
        return this;
    }

    Params bytes(byte[] value) throws SQLException {
        statement.setBytes(++index, value);
        return this;
    }

    /** Two parameters, {@code text[]} keys then {@code text[]} values, sorted by key. */
    Params map(Map<String, String> map) throws SQLException {
        TreeMap<String, String> sorted = new TreeMap<>(map);
        String[] keys = sorted.keySet().toArray(String[]::new);
        String[] values = sorted.values().toArray(String[]::new);
        statement.setArray(++index, statement.getConnection().createArrayOf("text", keys));
        statement.setArray(++index, statement.getConnection().createArrayOf("text", values));
        return this;
    }

    /** A map read back from two {@code text[]} columns (as built by {@code array_agg} over {@code jsonb_each_text}). */
    static Map<String, String> map(ResultSet rs, String keysColumn, String valuesColumn) throws SQLException {
        Array keys = rs.getArray(keysColumn);
        Array values = rs.getArray(valuesColumn);
        if (keys == null || values == null) {
            return Map.of();
        }
        String[] k = (String[]) keys.getArray();
        String[] v = (String[]) values.getArray();
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i < k.length; i++) {
            if (v[i] != null) {
                map.put(k[i], v[i]);
            }
        }
        return map;
    }

    /** A {@code timestamptz} column as an instant, or {@code null}. */
    static Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }
}

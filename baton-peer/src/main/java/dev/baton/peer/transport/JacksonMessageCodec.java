package dev.baton.peer.transport;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.exc.InvalidTypeIdException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.jsontype.NamedType;
import java.io.IOException;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A {@link MessageCodec} for a message family written as a sealed interface of records, as JSON with a type tag:
 * {@code {"type":"LeaderQuery","version":3,"from":"10.0.0.5:7400"}}.
 *
 * <p>{@link #forSealed(Class)} finds the records itself (walking nested sealed interfaces); each record's tag is its
 * {@link JsonTypeName} if it has one, else its simple class name. No annotations are needed on the interface: the
 * codec adds the type tag itself, in a property named {@value #TYPE_PROPERTY}, which is why a record component of that
 * name is refused. {@link #builder(Class)} registers the subtypes by hand instead.
 *
 * <p>Decoding is strict, because the bytes come from the network: an unknown or missing type tag, an unknown field, a
 * missing record component, {@code null} for a primitive, a duplicated field, trailing data or bytes that are not JSON are all refused
 * with a {@link MalformedMessageException} that names the problem. Nullable components must therefore be sent as an
 * explicit {@code null} (the encoder does that). The codec is immutable and thread-safe.
 *
 * @param <M> the message family
 */
public final class JacksonMessageCodec<M> implements MessageCodec<M> {

    /** The JSON property that carries the type tag. */
    public static final String TYPE_PROPERTY = "type";

    private final Class<M> baseType;
    private final Map<String, Class<? extends M>> subtypes;
    private final ObjectReader reader;
    private final ObjectWriter writer;

    private JacksonMessageCodec(Class<M> baseType, Map<String, Class<? extends M>> subtypes) {
        this.baseType = baseType;
        this.subtypes = Collections.unmodifiableMap(new LinkedHashMap<>(subtypes));
        ObjectMapper mapper = JsonMapper.builder()
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_INVALID_SUBTYPE)
                .enable(DeserializationFeature.FAIL_ON_MISSING_EXTERNAL_TYPE_ID_PROPERTY)
                .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .disable(DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .addMixIn(baseType, TypeTagMixIn.class)
                .build();
        subtypes.forEach((name, type) -> mapper.registerSubtypes(new NamedType(type, name)));
        this.reader = mapper.readerFor(baseType);
        this.writer = mapper.writerFor(baseType);
    }

    /**
     * A codec for every concrete type permitted, directly or through nested sealed interfaces, by the sealed interface
     * {@code sealedType}.
     *
     * @throws IllegalArgumentException if {@code sealedType} is not sealed, two subtypes share a tag, or a record has a
     *     component named {@value #TYPE_PROPERTY}
     */
    public static <M> JacksonMessageCodec<M> forSealed(Class<M> sealedType) {
        if (!sealedType.isSealed()) {
            throw new IllegalArgumentException(sealedType.getName() + " is not sealed: use builder(...) and register the subtypes");
        }
        Builder<M> builder = builder(sealedType);
        List<Class<?>> concrete = new ArrayList<>();
        collectConcrete(sealedType, concrete);
        for (Class<?> type : concrete) {
            @SuppressWarnings("unchecked")
            Class<? extends M> subtype = (Class<? extends M>) type;
            builder.register(subtype);
        }
        return builder.build();
    }

    private static void collectConcrete(Class<?> type, List<Class<?>> into) {
        for (Class<?> permitted : type.getPermittedSubclasses()) {
            if (permitted.isSealed() && (permitted.isInterface() || Modifier.isAbstract(permitted.getModifiers()))) {
                collectConcrete(permitted, into);
            } else if (permitted.isInterface() || Modifier.isAbstract(permitted.getModifiers())) {
                throw new IllegalArgumentException(permitted.getName() + " is abstract but not sealed: its subtypes cannot be found");
            } else {
                into.add(permitted);
            }
        }
    }

    /** A builder to which subtypes are registered one by one. */
    public static <M> Builder<M> builder(Class<M> baseType) {
        return new Builder<>(baseType);
    }

    /** The registered tags and their types, in registration order. */
    public Map<String, Class<? extends M>> subtypes() {
        return subtypes;
    }

    @Override
    public byte[] encode(M message) {
        Objects.requireNonNull(message, "message");
        if (!subtypes.containsValue(message.getClass())) {
            throw new IllegalArgumentException(
                    message.getClass().getName() + " is not a registered " + baseType.getSimpleName() + " type");
        }
        try {
            return writer.writeValueAsBytes(message);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot encode " + message.getClass().getSimpleName() + ": " + e.getOriginalMessage(), e);
        }
    }

    @Override
    public M decode(byte[] bytes) throws MalformedMessageException {
        if (bytes == null || bytes.length == 0) {
            throw new MalformedMessageException("empty payload");
        }
        Object value;
        try {
            value = reader.readValue(bytes);
        } catch (InvalidTypeIdException e) {
            throw new MalformedMessageException(e.getTypeId() == null
                    ? "missing type tag '" + TYPE_PROPERTY + "'"
                    : "unknown message type '" + e.getTypeId() + "'", e);
        } catch (UnrecognizedPropertyException e) {
            throw new MalformedMessageException("unknown field '" + e.getPropertyName() + "' in "
                    + simpleName(e.getReferringClass()), e);
        } catch (MismatchedInputException e) {
            throw new MalformedMessageException("invalid " + describeTarget(e) + ": " + plain(e.getOriginalMessage()), e);
        } catch (JsonParseException e) {
            throw new MalformedMessageException("not valid JSON: " + e.getOriginalMessage(), e);
        } catch (StreamReadException e) {
            throw new MalformedMessageException("unreadable JSON: " + e.getOriginalMessage(), e);
        } catch (JsonMappingException e) {
            throw new MalformedMessageException("invalid message: " + plain(e.getOriginalMessage()), e);
        } catch (IOException e) {
            throw new MalformedMessageException("unreadable payload: " + e.getMessage(), e);
        }
        if (value == null) {
            throw new MalformedMessageException("payload is JSON null, not a message");
        }
        return baseType.cast(value);
    }

    /** "Pong.n", from the reference chain of the failure, or the target type when there is none. */
    private static String describeTarget(MismatchedInputException e) {
        StringBuilder where = new StringBuilder();
        for (JsonMappingException.Reference ref : e.getPath()) {
            if (where.length() == 0 && ref.getFrom() != null) {
                Object from = ref.getFrom();
                where.append(from instanceof Class<?> c ? c.getSimpleName() : from.getClass().getSimpleName());
            }
            where.append(ref.getFieldName() != null ? "." + ref.getFieldName() : "[" + ref.getIndex() + "]");
        }
        if (where.length() == 0) {
            return simpleName(e.getTargetType());
        }
        return where.toString();
    }

    /** Jackson's message without its advice on configuration switches. */
    private static String plain(String message) {
        if (message == null) {
            return "unknown problem";
        }
        String m = message;
        for (String noise : new String[] {" (set DeserializationConfig", "; `DeserializationFeature", " (through reference"}) {
            int at = m.indexOf(noise);
            if (at > 0) {
                m = m.substring(0, at);
            }
        }
        return m.strip();
    }

    private static String simpleName(Class<?> type) {
        return type == null ? "message" : type.getSimpleName();
    }

    @Override
    public String toString() {
        return "JacksonMessageCodec[" + baseType.getSimpleName() + ": " + String.join(", ", subtypes.keySet()) + "]";
    }

    /** Puts the type tag on the message family without annotations on the user's interface. */
    @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = TYPE_PROPERTY)
    private interface TypeTagMixIn {
    }

    /** Registers subtypes; {@link #build()} checks them. */
    public static final class Builder<M> {
        private final Class<M> baseType;
        private final Map<String, Class<? extends M>> subtypes = new LinkedHashMap<>();

        private Builder(Class<M> baseType) {
            this.baseType = Objects.requireNonNull(baseType, "baseType");
        }

        /** Registers {@code type} under its {@link JsonTypeName}, or its simple class name. */
        public Builder<M> register(Class<? extends M> type) {
            JsonTypeName annotation = type.getAnnotation(JsonTypeName.class);
            String name = annotation != null && !annotation.value().isEmpty() ? annotation.value() : type.getSimpleName();
            return register(name, type);
        }

        /** Registers {@code type} under the tag {@code name}. */
        public Builder<M> register(String name, Class<? extends M> type) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(type, "type");
            if (name.isBlank()) {
                throw new IllegalArgumentException("type tag for " + type.getName() + " must not be blank");
            }
            if (!baseType.isAssignableFrom(type)) {
                throw new IllegalArgumentException(type.getName() + " is not a " + baseType.getName());
            }
            if (type.isInterface() || Modifier.isAbstract(type.getModifiers())) {
                throw new IllegalArgumentException(type.getName() + " is abstract: register its concrete types");
            }
            Class<? extends M> previous = subtypes.putIfAbsent(name, type);
            if (previous != null && previous != type) {
                throw new IllegalArgumentException("type tag '" + name + "' is used by both " + previous.getName()
                        + " and " + type.getName() + ": give one a @JsonTypeName");
            }
            if (type.isRecord()) {
                for (RecordComponent component : type.getRecordComponents()) {
                    if (component.getName().equals(TYPE_PROPERTY)) {
                        throw new IllegalArgumentException(type.getName() + " has a component named '" + TYPE_PROPERTY
                                + "', which the codec uses for the type tag: rename it");
                    }
                }
            }
            return this;
        }

        /** The codec; at least one subtype must be registered. */
        public JacksonMessageCodec<M> build() {
            if (subtypes.isEmpty()) {
                throw new IllegalArgumentException("no message types registered for " + baseType.getName());
            }
            return new JacksonMessageCodec<>(baseType, subtypes);
        }
    }
}

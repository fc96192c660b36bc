package dev.baton.work.internal.route;

import com.fasterxml.jackson.annotation.JacksonAnnotationsInside;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A bus message field that must be present and not {@code null}; {@link BusCodec} refuses a message without it as
 * "{@code <type>: field <name> is missing}".
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER})
@JacksonAnnotationsInside
@JsonProperty(required = true)
@JsonSetter(nulls = Nulls.FAIL, contentNulls = Nulls.FAIL)
@interface Required {
}

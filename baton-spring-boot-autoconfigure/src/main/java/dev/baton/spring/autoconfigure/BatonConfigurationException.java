package dev.baton.spring.autoconfigure;

/**
 * A {@code baton.*} property is missing or wrong, or the backend it names cannot be reached. The message names the
 * property; {@link BatonFailureAnalyzer} shows it as one line instead of a stack trace.
 */
public class BatonConfigurationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public BatonConfigurationException(String message) {
        super(message);
    }

    public BatonConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}

package dev.baton.core.spi;

import dev.baton.core.store.CoordinationStore;
import java.util.List;

/**
 * Opens a {@link CoordinationStore} from a backend URI: how a backend module tells {@link dev.baton.core.Baton#connect}
 * which URIs it accepts. A module registers its connector in
 * {@code META-INF/services/dev.baton.core.spi.StoreConnector}; {@code Baton.connect} finds it with
 * {@link java.util.ServiceLoader}, so an application (the node, the Spring Boot starter, your own) turns a
 * configured URI into a store without naming the backend class, and takes only the backend modules it runs on.
 *
 * <p>Implementations must be public, with a public no-argument constructor, and thread-safe.
 */
public interface StoreConnector {

    /** The URI schemes this connector opens, lower case and without {@code ://}, e.g. {@code redis}. */
    List<String> schemes();

    /** The URI forms it accepts, for help texts and error messages, e.g. {@code redis://HOST:PORT[/DB]}. */
    List<String> forms();

    /**
     * Connects to the store {@code uri} names; its scheme is one of {@link #schemes()}. The caller closes the store.
     *
     * @throws dev.baton.core.store.StoreException if the store cannot be reached (the message never holds a password)
     * @throws IllegalArgumentException            if the URI is malformed (the message names the problem)
     */
    CoordinationStore connect(String uri);
}

package dev.baton.spring.autoconfigure;

import dev.baton.peer.transport.PeerAddress;
import dev.baton.spring.BatonProperties;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** {@code baton.peer.*} checked, for the serverless backends; loaded only when {@code baton-peer} is present. */
final class PeerSettings {

    private PeerSettings() {
    }

    static PeerAddress listen(BatonProperties properties) {
        String listen = properties.getPeer().getListen();
        if (listen == null || listen.isBlank()) {
            throw new BatonConfigurationException("baton.backend=" + properties.getBackend().strip() + " needs "
                    + "baton.peer.listen=HOST:PORT: the address the other nodes reach this node at (its node id)");
        }
        return address("baton.peer.listen", listen);
    }

    static PeerAddress address(String property, String text) {
        try {
            return PeerAddress.parse(text.strip());
        } catch (IllegalArgumentException e) {
            throw new BatonConfigurationException(property + ": " + e.getMessage() + " (expected HOST:PORT, e.g. "
                    + "127.0.0.1:7401)", e);
        }
    }

    static Optional<byte[]> secret(BatonProperties properties) {
        String secret = properties.getPeer().getSecret();
        return secret == null || secret.isEmpty() ? Optional.empty()
                : Optional.of(secret.getBytes(StandardCharsets.UTF_8));
    }
}

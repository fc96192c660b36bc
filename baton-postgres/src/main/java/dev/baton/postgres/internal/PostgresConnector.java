package dev.baton.postgres.internal;

import dev.baton.core.spi.StoreConnector;
import dev.baton.core.store.CoordinationStore;
import dev.baton.postgres.PostgresStore;
import java.util.List;

/** Opens {@code postgresql://} (and {@code postgres://}) URIs for {@code Baton.connect}. */
public final class PostgresConnector implements StoreConnector {

    @Override
    public List<String> schemes() {
        return List.of("postgresql", "postgres");
    }

    @Override
    public List<String> forms() {
        return List.of("postgresql://USER[:PASSWORD]@HOST[:PORT][,HOST[:PORT]...]/DB[?schema=NAME]");
    }

    @Override
    public CoordinationStore connect(String uri) {
        return PostgresStore.connect(uri);
    }
}

package dev.baton.spring.autoconfigure;

import java.util.Locale;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Which kind of backend {@code baton.backend} names (a store, the quorum protocol or the bully election), and whether
 * leader-only HTTP paths are named.
 */
final class BackendConditions {

    private BackendConditions() {
    }

    /** A store URI ({@code memory}, {@code redis://}, {@code postgresql://}, ...), or nothing set yet. */
    static final class OnStore extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            String backend = context.getEnvironment().getProperty("baton.backend");
            boolean serverless = ElectionSettings.names(backend, "quorum") || ElectionSettings.names(backend, "bully");
            return serverless ? ConditionOutcome.noMatch("baton.backend is " + backend)
                    : ConditionOutcome.match("baton.backend names a store");
        }
    }

    /** {@code baton.backend=quorum} (or its old name {@code peer}). */
    static final class OnQuorum extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            String backend = context.getEnvironment().getProperty("baton.backend");
            return ElectionSettings.names(backend, "quorum") ? ConditionOutcome.match("baton.backend is quorum")
                    : ConditionOutcome.noMatch("baton.backend is not quorum");
        }
    }

    /** {@code baton.backend=bully}. */
    static final class OnBully extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            String backend = context.getEnvironment().getProperty("baton.backend");
            return ElectionSettings.names(backend, "bully") ? ConditionOutcome.match("baton.backend is bully")
                    : ConditionOutcome.noMatch("baton.backend is not bully");
        }
    }

    /** {@code baton.backend=postgresql://...}: the lease lives in the application's database. */
    static final class OnPostgres extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            String backend = context.getEnvironment().getProperty("baton.backend", "").strip().toLowerCase(Locale.ROOT);
            return backend.startsWith("postgresql://") || backend.startsWith("postgres://")
                    ? ConditionOutcome.match("baton.backend is PostgreSQL")
                    : ConditionOutcome.noMatch("baton.backend is not PostgreSQL");
        }
    }

    /** {@code baton.http.leader-only-paths} names at least one path (as a list or a comma-separated value). */
    static final class OnLeaderOnlyPaths extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            boolean named = Binder.get(context.getEnvironment())
                    .bind("baton.http.leader-only-paths", Bindable.listOf(String.class))
                    .map(paths -> !paths.isEmpty()).orElse(false);
            return named ? ConditionOutcome.match("baton.http.leader-only-paths is set")
                    : ConditionOutcome.noMatch("baton.http.leader-only-paths is empty");
        }
    }
}

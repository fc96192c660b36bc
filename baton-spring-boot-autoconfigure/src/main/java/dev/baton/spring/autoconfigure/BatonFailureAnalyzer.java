package dev.baton.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a {@link BatonConfigurationException} as Spring Boot's "APPLICATION FAILED TO START" text, without a trace. */
class BatonFailureAnalyzer extends AbstractFailureAnalyzer<BatonConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, BatonConfigurationException cause) {
        return new FailureAnalysis(cause.getMessage(),
                "Fix the baton.* property named above; docs/spring-boot.md lists them all.", cause);
    }
}

package dev.baton.spring;

import dev.baton.core.Election;
import dev.baton.core.Leadership;
import java.util.Optional;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Lets a {@link LeaderOnly} call through only while the election holds a leadership whose deadline has not passed. */
final class LeaderOnlyInterceptor implements MethodInterceptor {

    private static final Logger log = LoggerFactory.getLogger(LeaderOnlyInterceptor.class);

    private final Supplier<? extends Election> election;

    LeaderOnlyInterceptor(Supplier<? extends Election> election) {
        this.election = election;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Optional<Leadership> leadership = election.get().leadership();
        // leadership() is empty on a follower; isValid() also catches a deadline that passed since it was read.
        if (leadership.isEmpty() || !leadership.get().isValid()) {
            log.trace("skipped {}: this node does not lead", invocation.getMethod().getName());
            return null;
        }
        return CurrentLeadership.runUnder(leadership.get(), invocation::proceed);
    }
}

package dev.baton.spring;

import dev.baton.core.Election;
import java.lang.reflect.Method;
import java.util.Objects;
import java.util.function.Supplier;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Makes {@link LeaderOnly} methods run only on the leader: beans with such methods are proxied (a class proxy, so
 * {@code @Scheduled} still finds them) with an interceptor that asks the election before each call. Ordered before
 * Spring's {@code @Scheduled} processing, which then schedules the proxy's method.
 *
 * <p>The election is looked up on the first call, not when beans are created, so the store is not connected while
 * post-processors are still being set up.
 */
public class LeaderOnlyPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

    private static final long serialVersionUID = 1L;

    /** @param election supplies the election whose leadership lets calls in; asked on every call */
    public LeaderOnlyPostProcessor(Supplier<? extends Election> election) {
        Objects.requireNonNull(election, "election");
        this.advisor = new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, LeaderOnly.class, true),
                new LeaderOnlyInterceptor(election));
        setBeforeExistingAdvisors(true);
        setProxyTargetClass(true);
        setOrder(Ordered.LOWEST_PRECEDENCE - 100);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        ReflectionUtils.doWithMethods(AopUtils.getTargetClass(bean), method -> requireVoid(method, beanName),
                method -> AnnotatedElementUtils.hasAnnotation(method, LeaderOnly.class));
        return super.postProcessAfterInitialization(bean, beanName);
    }

    private static void requireVoid(Method method, String beanName) {
        if (method.getReturnType() != void.class) {
            throw new IllegalStateException("@LeaderOnly method " + method.getDeclaringClass().getSimpleName() + "."
                    + method.getName() + " of bean '" + beanName + "' must return void: on a follower it is not "
                    + "called, so there is nothing to return");
        }
    }
}

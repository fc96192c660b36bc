package dev.baton.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a method only while this node holds a valid leadership: on a follower, or once the leader's local deadline
 * has passed, a call does nothing and returns at once. Meant for {@code @Scheduled} methods, which Spring runs on every
 * copy of the application:
 *
 * <pre>{@code
 * @Scheduled(fixedDelay = 5_000)
 * @LeaderOnly
 * public void sendReminders() throws SQLException {
 *     jdbcFence.execute("reminders", CurrentLeadership.require(), connection -> ...);   // fenced by this leadership
 * }
 * }</pre>
 *
 * <p>The method must return {@code void}. While it runs, {@link CurrentLeadership} holds the leadership it was let in
 * under. The check is made when the call starts: a call that runs past the local deadline is not interrupted, which
 * is why its writes should go through a fence given that leadership ({@code JdbcFence}, {@code FencedRegister}):
 * the fence refuses a leadership that is no longer valid, and its term check refuses the term once a newer leader has
 * written. Applied by {@link LeaderOnlyPostProcessor} (a proxy with a method interceptor, no AspectJ); the
 * auto-configuration registers it.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderOnly {
}

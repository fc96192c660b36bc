/**
 * Building blocks for election backends: what an engine other than the lease election (the seed-node quorum
 * protocol, the bully election, one of your own) needs to behave like every Baton election. A supported API, kept
 * compatible like the rest of {@code dev.baton.core}; applications that only use elections do not need it.
 *
 * <ul>
 *   <li>{@link dev.baton.core.spi.EventDispatcher}: delivers events with the {@link dev.baton.core.ElectionListener}
 *       contract (per listener, in order, on its executor, a throwing listener logged and kept).</li>
 *   <li>{@link dev.baton.core.spi.LeaseDeadline}: the engine's handle on a {@link dev.baton.core.Leadership}'s local
 *       deadline, which listeners only read.</li>
 *   <li>{@link dev.baton.core.spi.FailureLog}: logs the failures of a dependency in a bounded number of lines while
 *       it is down.</li>
 *   <li>{@link dev.baton.core.spi.ShutdownRelease}: closes an election from a JVM shutdown hook while it runs, so a
 *       stopped leader hands over at once instead of when its lease expires.</li>
 * </ul>
 *
 * <p>Baton's own implementation classes live in {@code ..internal} packages and are not for use outside the module
 * that holds them; an architecture test keeps it so.
 */
package dev.baton.core.spi;

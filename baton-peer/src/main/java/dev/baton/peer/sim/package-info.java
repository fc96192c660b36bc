/**
 * The simulated network: {@link dev.baton.peer.sim.SimulatedNetwork} gives each simulated node a
 * {@link dev.baton.peer.transport.Transport} whose messages travel under virtual time with seeded delay, loss,
 * duplication, reordering, partitions, one-way cuts, crashes and restarts, so that a protocol's tests run thousands of
 * schedules deterministically and replay a failing one from its seed. {@link dev.baton.peer.sim.LinkConditions}
 * describes a link; {@link dev.baton.peer.sim.NetworkListener} and {@link dev.baton.peer.sim.TrafficRecorder} trace
 * and count messages.
 *
 * <p>It lives in main code rather than in {@code baton-testkit} because the testkit cannot depend on
 * {@code baton-peer} (whose tests depend on the testkit: Maven forbids the cycle).
 */
package dev.baton.peer.sim;

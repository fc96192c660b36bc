package dev.baton.core.store;

import dev.baton.core.NodeInfo;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Sessions: the optional role that lets one process hold the leases of many groups for the cost of one. A process
 * opens one session per store and keeps it alive with one call per renew interval; each group lease it takes is
 * <em>bound</em> to the session instead of carrying a TTL of its own, and lives exactly as long as the session does
 * (etcd's leases and ZooKeeper's sessions work the same way). A session is also the process's registry entry: the
 * node info given to {@link #open} is what {@link #members} lists for every group the session joined.
 *
 * <p>Rules every implementation keeps (the testkit's store conformance suite checks them):
 * <ol>
 *   <li>Expiry is decided by the store's clock only. A session that was not kept alive for its TTL has
 *       <em>ended</em>, as has a closed one; an ended session never comes back, whatever is asked of it later, and its
 *       id is never given out again.</li>
 *   <li>A group has at most one lease, bound to a session or (from {@link LeaseStore#acquire}) carrying its own TTL;
 *       both kinds see each other. A lease bound to an ended session is free: {@link #acquire} and
 *       {@link LeaseStore#acquire} grant it, and {@link LeaseStore#read} no longer returns it.</li>
 *   <li>Terms follow {@link LeaseStore#acquire}'s rules: a new term on every grant, above every term the store could
 *       have issued before, even after it lost its data. Fenced writes judge them as they judge any other term.</li>
 *   <li>{@link LeaseStore#read} and a denied acquire report a session-bound lease with the holder's session id and the
 *       session's remaining time; {@link LeaseStore#watch} delivers the same notices for both kinds.</li>
 * </ol>
 *
 * <p>Ending a session publishes nothing per group: a process that stops releases its groups first (each one call and
 * one notice, so followers take over at once) and closes its session after. Followers of a group whose holder
 * vanished learn it from {@link #remaining}, asked once for every session they wait on, not once per group.
 *
 * <p>Methods must not block the calling thread (see {@link LeaseStore}).
 */
public interface SessionStore {

    /**
     * Opens a new session for {@code owner}, alive for {@code ttl} by the store's clock unless kept alive, and returns
     * its id: one the store never gave out before.
     */
    CompletableFuture<String> open(NodeInfo owner, Duration ttl);

    /**
     * Extends the session to {@code ttl} from now. Returns false if it has ended: every lease bound to it has ended
     * with it, and the caller must open a new session.
     */
    CompletableFuture<Boolean> keepAlive(String session, Duration ttl);

    /**
     * Ends the session now: every lease still bound to it is free (without a notice) and it leaves every group it
     * joined. Returns false if it had already ended.
     */
    CompletableFuture<Boolean> close(String session);

    /** The remaining time of each of {@code sessions} that is alive, by the store's clock; ended ones are absent. */
    CompletableFuture<Map<String, Duration>> remaining(Set<String> sessions);

    /**
     * Takes the group's lease for {@code session} if the group has no lease, the lease it has is free (expired, or
     * bound to an ended session), or it is held by {@code candidate}'s node id (the same node, perhaps restarted
     * under a new session, takes it back under a new term). On success the lease is bound to {@code session},
     * {@code candidate} is recorded as the leader's process info and an {@link LeaseNotice.Kind#ACQUIRED} notice is
     * published; a denial carries the lease that stands.
     *
     * <p>Fails with a {@link SessionEndedException} if the session has ended. A store that keeps a copy of the
     * session beside the group's data (Redis Cluster, where one script reaches one hash slot) may instead take the
     * caller's word that its session is alive: the caller asks only within its session's local deadline.
     */
    CompletableFuture<AcquireResult> acquire(String group, String session, NodeInfo candidate);

    /**
     * Deletes the group's lease if it is bound to {@code session} under {@code term}, and publishes a
     * {@link LeaseNotice.Kind#RELEASED} notice. Returns whether anything was released.
     */
    CompletableFuture<Boolean> release(String group, String session, long term);

    /**
     * Adds the session to the group's members (a {@link MemberNotice.Kind#REGISTERED} notice for its node on
     * {@link RegistryStore#watchMembers}); it stays a member until it leaves or ends. Fails with a
     * {@link SessionEndedException} if the session has ended (or, as for {@link #acquire}, takes the caller's word).
     */
    CompletableFuture<Void> join(String group, String session);

    /** Removes the session from the group's members and publishes an unregistered notice; false if it was none. */
    CompletableFuture<Boolean> leave(String group, String session);

    /**
     * Every live session that joined the group, by session id, iterating in node id order: its node info stamped by
     * the store ({@code registeredAt} when it joined, {@code lastSeen} when it was last kept alive) with the leader
     * role for the holder of the group's lease. Ended sessions are never listed. A leader that tracks members learns
     * of a member's end from {@link #remaining}, asked once for the members of all its groups.
     */
    CompletableFuture<Map<String, NodeInfo>> members(String group);
}

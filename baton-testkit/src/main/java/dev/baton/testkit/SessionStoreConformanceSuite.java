package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.FencedWriteResult;
import dev.baton.core.store.Lease;
import dev.baton.core.store.LeaseNotice;
import dev.baton.core.store.MemberNotice;
import dev.baton.core.store.SessionEndedException;
import dev.baton.core.store.SessionStore;
import dev.baton.core.store.Subscription;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The session role of the store contract ({@link SessionStore}), as tests every store that offers sessions must pass.
 * {@link StoreConformanceSuite} runs it on its backend as a nested suite; a backend may also extend it alone.
 *
 * <p>Each test works in its own groups. Expiry runs on the store's clock, so the tests that need a session to end use
 * short TTLs, real time and Awaitility.
 */
public abstract class SessionStoreConformanceSuite {

    private static final Duration LONG = Duration.ofSeconds(30);
    private static final Duration SHORT = Duration.ofMillis(300);
    /** Short enough to wait for its end, long enough for the few calls a test makes before that. */
    private static final Duration BRIEF = Duration.ofMillis(1500);

    /** A new client on the backend under test, closed after each test (in-process backends may share one). */
    protected abstract CoordinationStore newStore();

    private final SuiteClients clients = new SuiteClients(this::newStore);
    private CoordinationStore store;
    private SessionStore sessions;
    private String group;

    /** Whether to run at all: a suite nested in {@link StoreConformanceSuite} runs only where sessions are offered. */
    protected boolean offered() {
        return true;
    }

    @BeforeEach
    void openStore() {
        Assumptions.assumeTrue(offered(), "this backend offers no sessions");
        store = open();
        sessions = store.sessions().orElseThrow(() -> new AssertionError(store.describe() + " offers no sessions"));
        group = "sessions-" + UUID.randomUUID();
    }

    @AfterEach
    void closeStores() {
        clients.closeAll();
    }

    private CoordinationStore open() {
        return clients.open();
    }

    private static <T> T get(CompletableFuture<T> future) {
        return SuiteClients.get(future);
    }

    private static NodeInfo node(String id) {
        return SuiteClients.node(id);
    }

    private String openSession(String nodeId, Duration ttl) {
        return get(sessions.open(node(nodeId), ttl));
    }

    private long granted(String group, String session, String nodeId) {
        AcquireResult result = get(sessions.acquire(group, session, node(nodeId)));
        assertThat(result).as("acquire by %s", nodeId).isInstanceOf(AcquireResult.Granted.class);
        return ((AcquireResult.Granted) result).term();
    }

    private void awaitEnded(String session) {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> get(sessions.remaining(Set.of(session))).isEmpty());
    }

    // ---------------------------------------------------------------- sessions

    @Test
    void everySessionGetsAnIdNeverGivenOutBefore() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            String id = openSession("a", LONG);
            assertThat(id).isNotBlank();
            assertThat(ids.add(id)).as("id %s given twice", id).isTrue();
            assertThat(get(sessions.close(id))).isTrue();
        }
    }

    @Test
    void aSessionKeptAliveOutlivesItsFirstTtl() {
        String session = openSession("a", SHORT);

        assertThat(get(sessions.keepAlive(session, LONG))).isTrue();

        Map<String, Duration> remaining = get(sessions.remaining(Set.of(session)));
        assertThat(remaining.get(session)).isGreaterThan(SHORT).isLessThanOrEqualTo(LONG);
    }

    @Test
    void anEndedSessionNeverComesBack() {
        String expired = openSession("a", SHORT);
        String closed = openSession("b", LONG);

        awaitEnded(expired);
        assertThat(get(sessions.close(closed))).isTrue();

        assertThat(get(sessions.keepAlive(expired, LONG))).isFalse();
        assertThat(get(sessions.keepAlive(closed, LONG))).isFalse();
        assertThat(get(sessions.close(closed))).as("second close").isFalse();
        assertThat(get(sessions.remaining(Set.of(expired, closed)))).isEmpty();
        assertThatThrownBy(() -> sessions.acquire(group, closed, node("b")).get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(SessionEndedException.class);
    }

    @Test
    void remainingAnswersForManySessionsInOneCall() {
        String a = openSession("a", LONG);
        String b = openSession("b", LONG);
        String gone = openSession("c", LONG);
        get(sessions.close(gone));

        Map<String, Duration> remaining = get(sessions.remaining(Set.of(a, b, gone, "never-opened")));

        assertThat(remaining).containsOnlyKeys(a, b);
        assertThat(remaining.values()).allSatisfy(d -> assertThat(d).isPositive().isLessThanOrEqualTo(LONG));
    }

    // ---------------------------------------------------------------- leases bound to sessions

    @Test
    void aBoundLeaseIsReadAndDeniedWithItsSessionAndTheSessionsTime() {
        String session = openSession("a", LONG);
        long term = granted(group, session, "a");
        String other = openSession("b", LONG);

        AcquireResult denied = get(sessions.acquire(group, other, node("b")));

        assertThat(denied).isInstanceOf(AcquireResult.Denied.class);
        Lease current = ((AcquireResult.Denied) denied).current();
        assertThat(current.owner()).isEqualTo("a");
        assertThat(current.term()).isEqualTo(term);
        assertThat(current.session()).isEqualTo(session);
        assertThat(current.remaining()).isPositive().isLessThanOrEqualTo(LONG);
        Lease read = get(store.leases().read(group)).orElseThrow();
        assertThat(read.owner()).isEqualTo("a");
        assertThat(read.term()).isEqualTo(term);
        assertThat(read.session()).isEqualTo(session);
        assertThat(read.boundToSession()).isTrue();
        AcquireResult ttlDenied = get(store.leases().acquire(group, node("c"), LONG));
        assertThat(ttlDenied).as("a lease with a TTL of its own sees the bound one")
                .isInstanceOf(AcquireResult.Denied.class);
    }

    @Test
    void oneSessionHoldsManyGroupsAndOneKeepAliveKeepsThemAll() {
        String session = openSession("a", BRIEF);
        List<String> groups = List.of(group + "-1", group + "-2", group + "-3");
        for (String g : groups) {
            granted(g, session, "a");
        }
        String clock = openSession("clock", BRIEF); // ends when the first TTL has passed by the store's clock

        // One keep-alive per interval, whatever the number of groups, with the TTL the session was opened with: a
        // store whose sessions are etcd leases cannot lengthen a session's TTL, only restore it.
        await().atMost(Duration.ofSeconds(10)).pollInterval(BRIEF.dividedBy(4)).until(() -> {
            if (!get(sessions.keepAlive(session, BRIEF))) {
                throw new AssertionError("the session kept alive has ended");
            }
            return get(sessions.remaining(Set.of(clock))).isEmpty();
        });

        String other = openSession("b", LONG);
        for (String g : groups) {
            assertThat(get(sessions.acquire(g, other, node("b")))).as(g).isInstanceOf(AcquireResult.Denied.class);
        }
    }

    @Test
    void whenTheSessionEndsEveryLeaseBoundToItIsFree() {
        String session = openSession("a", BRIEF);
        long t1 = granted(group + "-1", session, "a");
        long t2 = granted(group + "-2", session, "a");

        awaitEnded(session);

        assertThat(get(store.leases().read(group + "-1"))).isEmpty();
        String other = openSession("b", LONG);
        assertThat(granted(group + "-1", other, "b")).isGreaterThan(t1);
        AcquireResult ttl = get(store.leases().acquire(group + "-2", node("c"), LONG));
        assertThat(ttl).isInstanceOf(AcquireResult.Granted.class);
        assertThat(((AcquireResult.Granted) ttl).term()).isGreaterThan(t2);
    }

    @Test
    void closingASessionFreesItsLeasesAtOnce() {
        String session = openSession("a", LONG);
        granted(group, session, "a");

        assertThat(get(sessions.close(session))).isTrue();

        assertThat(get(store.leases().read(group))).isEmpty();
        assertThat(granted(group, openSession("b", LONG), "b")).isPositive();
    }

    @Test
    void theSameNodeTakesItsLeaseBackUnderANewSessionAndANewTerm() {
        String before = openSession("a", LONG);
        long first = granted(group, before, "a");
        String after = openSession("a", LONG);

        long second = granted(group, after, "a");

        assertThat(second).isGreaterThan(first);
        assertThat(get(store.leases().read(group)).orElseThrow().session()).isEqualTo(after);
        assertThat(get(sessions.release(group, before, first))).as("release by the old session").isFalse();
    }

    @Test
    void onlyTheHoldingSessionWithItsTermReleasesAndWatchersHearIt() {
        List<LeaseNotice> heard = new CopyOnWriteArrayList<>();
        Subscription watch = store.leases().watch(group, heard::add);
        get(watch.ready());
        String session = openSession("a", LONG);
        String other = openSession("b", LONG);
        long term = granted(group, session, "a");

        assertThat(get(sessions.release(group, other, term))).isFalse();
        assertThat(get(sessions.release(group, session, term + 1))).isFalse();
        assertThat(get(sessions.release(group, session, term))).isTrue();
        assertThat(get(sessions.release(group, session, term))).as("second release").isFalse();

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(heard).containsExactly(
                new LeaseNotice(LeaseNotice.Kind.ACQUIRED, "a", term),
                new LeaseNotice(LeaseNotice.Kind.RELEASED, "a", term)));
        watch.close();
    }

    @Test
    void termsRiseAcrossBothKindsOfLease() {
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < 4; i++) {
            long term;
            if (i % 2 == 0) {
                String session = openSession("s" + i, LONG);
                term = granted(group, session, "s" + i);
                assertThat(get(sessions.release(group, session, term))).isTrue();
            } else {
                AcquireResult result = get(store.leases().acquire(group, node("t" + i), LONG));
                term = ((AcquireResult.Granted) result).term();
                assertThat(get(store.leases().release(group, "t" + i, term))).isTrue();
            }
            assertThat(term).isGreaterThan(previous);
            previous = term;
        }
    }

    @Test
    void aBoundLeaseIsNotRenewedLikeOneWithItsOwnTtl() {
        String session = openSession("a", LONG);
        long term = granted(group, session, "a");

        assertThat(get(store.leases().renew(group, "a", term, LONG))).isFalse();
        assertThat(get(store.leases().read(group))).isPresent();
    }

    @Test
    void theBoundLeasesTermFencesWrites() {
        String session = openSession("a", LONG);
        long first = granted(group, session, "a");
        byte[] value = "v".getBytes(StandardCharsets.UTF_8);
        assertThat(get(store.registers().fencedWrite(group, "r", "a", first, value)).accepted()).isTrue();
        get(sessions.release(group, session, first));
        long second = granted(group, openSession("b", LONG), "b");

        FencedWriteResult stale = get(store.registers().fencedWrite(group, "r", "a", first, value));

        assertThat(stale.accepted()).isFalse();
        assertThat(get(store.registers().fencedWrite(group, "r", "b", second, value)).accepted()).isTrue();
    }

    @Test
    void contendingSessionsGetExactlyOneGrant() {
        List<CompletableFuture<AcquireResult>> calls = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            SessionStore client = open().sessions().orElseThrow();
            String session = get(client.open(node("n" + i), LONG));
            calls.add(client.acquire(group, session, node("n" + i)));
        }

        long grants = calls.stream().map(SessionStoreConformanceSuite::get)
                .filter(AcquireResult.Granted.class::isInstance).count();

        assertThat(grants).isEqualTo(1);
    }

    // ---------------------------------------------------------------- members

    @Test
    void membersAreTheLiveSessionsThatJoinedWithTheLeaderMarked() {
        List<MemberNotice> heard = new CopyOnWriteArrayList<>();
        Subscription watch = store.registry().watchMembers(group, heard::add);
        get(watch.ready());
        String a = openSession("a", LONG);
        String b = openSession("b", BRIEF);
        openSession("c", LONG); // never joins
        get(sessions.join(group, a));
        get(sessions.join(group, b));
        granted(group, a, "a");

        Map<String, NodeInfo> bySession = get(sessions.members(group));

        assertThat(bySession.keySet()).containsExactly(a, b);
        List<NodeInfo> members = List.copyOf(bySession.values());
        assertThat(members).extracting(NodeInfo::id).containsExactly("a", "b");
        assertThat(members.get(0).role()).isEqualTo(Role.LEADER);
        assertThat(members.get(1).role()).isEqualTo(Role.FOLLOWER);
        assertThat(members).allSatisfy(m -> assertThat(m.registeredAt()).isNotNull());
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(heard).containsExactly(
                new MemberNotice(MemberNotice.Kind.REGISTERED, "a"),
                new MemberNotice(MemberNotice.Kind.REGISTERED, "b")));

        awaitEnded(b);
        assertThat(get(sessions.members(group)).values()).extracting(NodeInfo::id).containsExactly("a");
        assertThat(get(sessions.leave(group, a))).isTrue();
        assertThat(get(sessions.leave(group, a))).as("second leave").isFalse();
        assertThat(get(sessions.members(group))).isEmpty();
        watch.close();
    }

    @Test
    void joiningIsPerGroupAndAnEndedSessionCannotJoin() {
        String a = openSession("a", LONG);
        get(sessions.join(group + "-1", a));
        get(sessions.close(a));

        assertThat(get(sessions.members(group + "-1"))).isEmpty();
        assertThat(get(sessions.members(group + "-2"))).isEmpty();
        assertThatThrownBy(() -> sessions.join(group + "-2", a).get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(SessionEndedException.class);
    }
}

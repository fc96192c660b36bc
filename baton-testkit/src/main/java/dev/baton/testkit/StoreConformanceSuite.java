package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.ClusterEvent;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.FencedMapWrite;
import dev.baton.core.store.FencedValue;
import dev.baton.core.store.FencedWriteResult;
import dev.baton.core.store.LeaderRecordStore;
import dev.baton.core.store.Lease;
import dev.baton.core.store.LeaseNotice;
import dev.baton.core.store.MemberNotice;
import dev.baton.core.store.Subscription;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The store contract (DESIGN §3), as tests every {@link CoordinationStore} must pass. A backend's test extends this
 * class and implements {@link #newStore()}; that is all. The nested {@link LeaderRecords} runs the
 * {@link LeaderRecordStoreConformanceSuite} on the same backend.
 *
 * <p>Each test works in its own group, so a backend may share one server across tests. Time-based tests use real
 * time with short TTLs and Awaitility, because a store's expiry runs on the store's own clock.
 */
public abstract class StoreConformanceSuite {

    private static final Duration LONG = Duration.ofSeconds(30);
    private static final Duration SHORT = Duration.ofMillis(300);

    /**
     * A new client on the backend under test, closed after each test. In-process backends may return the same
     * instance for every call within one test, since all clients must see the same state.
     */
    protected abstract CoordinationStore newStore();

    protected CoordinationStore store;
    protected String group;
    private final SuiteClients clients = new SuiteClients(this::newStore);

    @BeforeEach
    void openStore() {
        store = open();
        group = "conformance-" + UUID.randomUUID();
    }

    @AfterEach
    void closeStores() {
        clients.closeAll();
    }

    /** Opens one more client on the same backend, closed after the test. */
    protected CoordinationStore open() {
        return clients.open();
    }

    protected static <T> T get(CompletableFuture<T> future) {
        return SuiteClients.get(future);
    }

    private static NodeInfo node(String id) {
        return SuiteClients.node(id);
    }

    private long acquireGranted(String nodeId, Duration ttl) {
        AcquireResult result = get(store.leases().acquire(group, node(nodeId), ttl));
        assertThat(result).as("acquire by %s", nodeId).isInstanceOf(AcquireResult.Granted.class);
        return ((AcquireResult.Granted) result).term();
    }

    /** Every {@code CoordinationStore} offers a leader record store: the whole leader record contract,
            on this backend. */
    @Nested
    class LeaderRecords extends LeaderRecordStoreConformanceSuite {

        @Override
        protected LeaderRecordStore newStore() {
            return StoreConformanceSuite.this.newStore().leaderRecords();
        }
    }

    /**
     * Whether the backend offers sessions ({@link CoordinationStore#sessions()}); one that does runs the whole
     * {@link SessionStoreConformanceSuite} as the nested {@link Sessions}.
     */
    protected boolean offersSessions() {
        return true;
    }

    /** The session contract, on this backend, if it offers sessions. */
    @Nested
    class Sessions extends SessionStoreConformanceSuite {

        @Override
        protected boolean offered() {
            return offersSessions();
        }

        @Override
        protected CoordinationStore newStore() {
            return StoreConformanceSuite.this.newStore();
        }
    }

    /** A store says whether it offers sessions, and one that says it does gives the same role every time. */
    @Test
    void sessionsAreOfferedExactlyWhereTheBackendSaysSo() {
        assertThat(store.sessions()).isEqualTo(store.sessions());
        assertThat(store.sessions().isPresent()).isEqualTo(offersSessions());
    }

    // ---------------------------------------------------------------- roles

    /** Callers keep a role and use it for the store's lifetime: each accessor answers one object, every time. */
    @Test
    void everyRoleIsOneObjectForTheStoresLifetime() {
        assertThat(store.leases()).isNotNull().isSameAs(store.leases());
        assertThat(store.registry()).isNotNull().isSameAs(store.registry());
        assertThat(store.registers()).isNotNull().isSameAs(store.registers());
        assertThat(store.maps()).isNotNull().isSameAs(store.maps());
        assertThat(store.events()).isNotNull().isSameAs(store.events());
        assertThat(store.bus()).isNotNull().isSameAs(store.bus());
        assertThat(store.leaderRecords()).isNotNull().isSameAs(store.leaderRecords());
        assertThat(store.leaderRecords().describe()).isEqualTo(store.describe());
    }

    // ---------------------------------------------------------------- leases

    @Test
    void firstCandidateGetsTheLeaseAndOthersAreToldWhoHoldsIt() {
        long term = acquireGranted("a", LONG);

        AcquireResult second = get(store.leases().acquire(group, node("b"), LONG));

        assertThat(second).isInstanceOf(AcquireResult.Denied.class);
        Lease current = ((AcquireResult.Denied) second).current();
        assertThat(current.owner()).isEqualTo("a");
        assertThat(current.term()).isEqualTo(term);
        assertThat(current.remaining()).isPositive().isLessThanOrEqualTo(LONG);
    }

    @Test
    void termsStrictlyIncreaseEveryTimeTheLeaseChangesHands() {
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < 5; i++) {
            String owner = "node-" + (i % 2);
            long term = acquireGranted(owner, LONG);
            assertThat(term).isGreaterThan(previous);
            assertThat(get(store.leases().release(group, owner, term))).isTrue();
            previous = term;
        }
    }

    @Test
    void theHolderMayTakeItsLeaseAgainUnderANewTerm() {
        long first = acquireGranted("a", LONG);

        long second = acquireGranted("a", LONG);

        assertThat(second).isGreaterThan(first);
        assertThat(get(store.leases().renew(group, "a", first, LONG))).as("old term renews").isFalse();
        assertThat(get(store.leases().renew(group, "a", second, LONG))).isTrue();
    }

    @Test
    void onlyTheOwnerWithItsTermCanRenew() {
        long term = acquireGranted("a", LONG);

        assertThat(get(store.leases().renew(group, "b", term, LONG))).isFalse();
        assertThat(get(store.leases().renew(group, "a", term + 1, LONG))).isFalse();
        assertThat(get(store.leases().renew(group, "a", term, LONG))).isTrue();
    }

    @Test
    void renewalExtendsTheLeaseByTheStoreClock() {
        long term = acquireGranted("a", SHORT);

        assertThat(get(store.leases().renew(group, "a", term, LONG))).isTrue();

        Lease lease = get(store.leases().read(group)).orElseThrow();
        assertThat(lease.remaining()).isGreaterThan(SHORT);
    }

    @Test
    void onlyTheOwnerWithItsTermCanRelease() {
        long term = acquireGranted("a", LONG);

        assertThat(get(store.leases().release(group, "b", term))).isFalse();
        assertThat(get(store.leases().release(group, "a", term - 1))).isFalse();
        assertThat(get(store.leases().read(group))).isPresent();

        assertThat(get(store.leases().release(group, "a", term))).isTrue();
        assertThat(get(store.leases().read(group))).isEmpty();
        assertThat(get(store.leases().release(group, "a", term))).as("second release").isFalse();
    }

    @Test
    void readReportsOwnerTermAndRemainingTime() {
        assertThat(get(store.leases().read(group))).isEmpty();
        long term = acquireGranted("a", LONG);

        Lease lease = get(store.leases().read(group)).orElseThrow();

        assertThat(lease.owner()).isEqualTo("a");
        assertThat(lease.term()).isEqualTo(term);
        assertThat(lease.remaining()).isPositive().isLessThanOrEqualTo(LONG);
    }

    @Test
    void anUnrenewedLeaseExpiresAndCanBeTakenByAnother() {
        long term = acquireGranted("a", SHORT);

        await().atMost(Duration.ofSeconds(5)).until(() -> get(store.leases().read(group)).isEmpty());

        assertThat(get(store.leases().renew(group, "a", term, LONG))).as("renew after expiry").isFalse();
        long next = acquireGranted("b", LONG);
        assertThat(next).isGreaterThan(term);
    }

    @Test
    void contendingClientsGetExactlyOneGrant() {
        List<CompletableFuture<AcquireResult>> attempts = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            CoordinationStore client = i % 2 == 0 ? store : open();
            attempts.add(client.leases().acquire(group, node("n" + i), LONG));
        }

        long granted = attempts.stream().map(StoreConformanceSuite::get)
                .filter(r -> r instanceof AcquireResult.Granted).count();

        assertThat(granted).isEqualTo(1);
    }

    @Test
    void groupsAreIndependent() {
        String other = group + "-other";
        long term = acquireGranted("a", LONG);

        AcquireResult elsewhere = get(store.leases().acquire(other, node("b"), LONG));

        assertThat(elsewhere).isInstanceOf(AcquireResult.Granted.class);
        assertThat(get(store.leases().read(group)).orElseThrow().term()).isEqualTo(term);
    }

    @Test
    void watchersHearAcquisitionsAndReleases() {
        List<LeaseNotice> heard = new CopyOnWriteArrayList<>();
        CoordinationStore watcherClient = open();
        Subscription subscription = watcherClient.leases().watch(group, heard::add);
        get(subscription.ready());

        long term = acquireGranted("a", LONG);
        get(store.leases().release(group, "a", term));

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(heard).containsExactly(
                new LeaseNotice(LeaseNotice.Kind.ACQUIRED, "a", term),
                new LeaseNotice(LeaseNotice.Kind.RELEASED, "a", term)));
    }

    @Test
    void aClosedWatchHearsNothingMore() {
        List<LeaseNotice> heard = new CopyOnWriteArrayList<>();
        Subscription subscription = store.leases().watch(group, heard::add);
        get(subscription.ready());
        subscription.close();

        acquireGranted("a", LONG);
        List<LeaseNotice> probe = new CopyOnWriteArrayList<>();
        Subscription later = store.leases().watch(group, probe::add);
        get(later.ready());
        get(store.leases().acquire(group, node("a"), LONG));
        await().atMost(Duration.ofSeconds(5)).until(() -> !probe.isEmpty());

        assertThat(heard).isEmpty();
        later.close();
    }

    // ---------------------------------------------------------------- registry

    @Test
    void registeredProcessesAreListedInIdOrderWithStoreTimestamps() {
        get(store.registry().register(group, node("p2"), LONG));
        get(store.registry().register(group, node("p1").withMetadata(Map.of("zone", "a")), LONG));

        List<NodeInfo> members = get(store.registry().members(group));

        assertThat(members).extracting(NodeInfo::id).containsExactly("p1", "p2");
        NodeInfo p1 = members.get(0);
        assertThat(p1.metadata()).containsEntry("zone", "a");
        assertThat(p1.identifier()).isEqualTo("conformance");
        assertThat(p1.registeredAt()).isNotNull();
        assertThat(p1.lastSeen()).isNotNull();
        assertThat(get(store.registry().member(group, "p2"))).isPresent();
        assertThat(get(store.registry().member(group, "nobody"))).isEmpty();
    }

    @Test
    void reRegisteringKeepsTheFirstRegistrationTime() {
        get(store.registry().register(group, node("p1"), LONG));
        NodeInfo first = get(store.registry().member(group, "p1")).orElseThrow();

        get(store.registry().register(group, node("p1").withMetadata(Map.of("v", "2")), LONG));

        NodeInfo second = get(store.registry().member(group, "p1")).orElseThrow();
        assertThat(second.registeredAt()).isEqualTo(first.registeredAt());
        assertThat(second.metadata()).containsEntry("v", "2");
    }

    @Test
    void heartbeatRenewsOnlyLiveEntries() {
        get(store.registry().register(group, node("p1"), SHORT));

        assertThat(get(store.registry().heartbeat(group, "p1", LONG))).isTrue();
        assertThat(get(store.registry().heartbeat(group, "ghost", LONG))).isFalse();

        NodeInfo renewed = get(store.registry().member(group, "p1")).orElseThrow();
        assertThat(renewed.lastSeen()).isAfterOrEqualTo(renewed.registeredAt());
    }

    @Test
    void entriesExpireWithoutHeartbeatsAndAreSweptOnce() {
        get(store.registry().register(group, node("short"), SHORT));
        get(store.registry().register(group, node("long"), LONG));

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(get(store.registry().members(group))).extracting(NodeInfo::id).containsExactly("long"));

        assertThat(get(store.registry().member(group, "short"))).isEmpty();
        assertThat(get(store.registry().heartbeat(group, "short", LONG))).as("heartbeat after expiry").isFalse();
        List<String> swept = get(store.registry().sweepExpired(group));
        assertThat(swept).isSubsetOf("short");
        assertThat(get(store.registry().sweepExpired(group))).isEmpty();
    }

    @Test
    void unregisterRemovesAnEntry() {
        get(store.registry().register(group, node("p1"), LONG));

        assertThat(get(store.registry().unregister(group, "p1"))).isTrue();
        assertThat(get(store.registry().unregister(group, "p1"))).isFalse();
        assertThat(get(store.registry().members(group))).isEmpty();
    }

    @Test
    void rolesAreDerivedFromTheCurrentLease() {
        get(store.registry().register(group, node("a"), LONG));
        get(store.registry().register(group, node("b").withRole(Role.LEADER), LONG));
        long term = acquireGranted("a", LONG);

        assertThat(get(store.registry().members(group))).extracting(NodeInfo::id, NodeInfo::role)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("a", Role.LEADER),
                        org.assertj.core.groups.Tuple.tuple("b", Role.FOLLOWER));

        get(store.leases().release(group, "a", term));
        assertThat(get(store.registry().members(group))).extracting(NodeInfo::role).containsOnly(Role.FOLLOWER);
    }

    @Test
    void leaderInfoIsTheLeaseHoldersProcessWhileTheLeaseLives() {
        assertThat(get(store.registry().leaderInfo(group))).isEmpty();
        long term = acquireGranted("a", LONG);

        Optional<NodeInfo> leader = get(store.registry().leaderInfo(group));

        assertThat(leader).hasValueSatisfying(info -> {
            assertThat(info.id()).isEqualTo("a");
            assertThat(info.role()).isEqualTo(Role.LEADER);
        });
        get(store.leases().release(group, "a", term));
        assertThat(get(store.registry().leaderInfo(group))).isEmpty();
    }

    @Test
    void memberWatchersHearRegistrationsButNotHeartbeats() {
        List<MemberNotice> heard = new CopyOnWriteArrayList<>();
        Subscription subscription = open().registry().watchMembers(group, heard::add);
        get(subscription.ready());

        get(store.registry().register(group, node("p1"), LONG));
        get(store.registry().heartbeat(group, "p1", LONG));
        get(store.registry().register(group, node("p1"), LONG));
        get(store.registry().unregister(group, "p1"));

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(heard).containsExactly(
                new MemberNotice(MemberNotice.Kind.REGISTERED, "p1"),
                new MemberNotice(MemberNotice.Kind.UNREGISTERED, "p1")));
    }

    // ---------------------------------------------------------------- fenced registers

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theCurrentTermMayWrite() {
        long term = acquireGranted("a", LONG);

        FencedWriteResult result = get(store.registers().fencedWrite(group, "r", "a", term, bytes("one")));

        assertThat(result.accepted()).isTrue();
        FencedValue value = get(store.registers().fencedRead(group, "r")).orElseThrow();
        assertThat(value.term()).isEqualTo(term);
        assertThat(value.writer()).isEqualTo("a");
        assertThat(new String(value.value(), StandardCharsets.UTF_8)).isEqualTo("one");
    }

    @Test
    void aDeposedLeaderIsRefusedEvenBeforeItsSuccessorWrites() {
        long old = acquireGranted("a", SHORT);
        await().atMost(Duration.ofSeconds(5)).until(() -> get(store.leases().read(group)).isEmpty());
        long current = acquireGranted("b", LONG);

        FencedWriteResult stale = get(store.registers().fencedWrite(group, "r", "a", old, bytes("stale")));

        assertThat(stale.accepted()).isFalse();
        assertThat(stale.currentTerm()).isEqualTo(current);
        assertThat(get(store.registers().fencedRead(group, "r"))).isEmpty();
    }

    @Test
    void aRefusedWriteLeavesTheRegisterUntouched() {
        long first = acquireGranted("a", LONG);
        get(store.leases().release(group, "a", first));
        long second = acquireGranted("b", LONG);
        assertThat(get(store.registers().fencedWrite(group, "r", "b", second, bytes("new"))).accepted()).isTrue();

        FencedWriteResult stale = get(store.registers().fencedWrite(group, "r", "a", first, bytes("old")));

        assertThat(stale.accepted()).isFalse();
        FencedValue value = get(store.registers().fencedRead(group, "r")).orElseThrow();
        assertThat(value.term()).isEqualTo(second);
        assertThat(new String(value.value(), StandardCharsets.UTF_8)).isEqualTo("new");
    }

    @Test
    void aTermNeverIssuedIsRefused() {
        assertThat(get(store.registers().fencedWrite(group, "r", "a", 0, bytes("before any lease"))).accepted())
                .isFalse();
        long term = acquireGranted("a", LONG);

        assertThat(get(store.registers().fencedWrite(group, "r", "a", term + 1, bytes("x"))).accepted()).isFalse();
        assertThat(get(store.registers().fencedWrite(group, "r", "a", term, bytes("x"))).accepted()).isTrue();
    }

    // ---------------------------------------------------------------- fenced maps

    private static String text(FencedValue value) {
        return new String(value.value(), StandardCharsets.UTF_8);
    }

    @Test
    void theCurrentTermMayPutAndReplaceMapEntries() {
        long term = acquireGranted("a", LONG);

        FencedMapWrite created = get(store.maps().fencedPut(group, "items", "k", "a", term, bytes("one")));
        FencedMapWrite replaced = get(store.maps().fencedPut(group, "items", "k", "a", term, bytes("two")));

        assertThat(created).isEqualTo(new FencedMapWrite(true, term, false));
        assertThat(replaced).isEqualTo(new FencedMapWrite(true, term, true));
        FencedValue value = get(open().maps().mapGet(group, "items", "k")).orElseThrow();
        assertThat(value.term()).isEqualTo(term);
        assertThat(value.writer()).isEqualTo("a");
        assertThat(text(value)).isEqualTo("two");
    }

    @Test
    void mapEntriesAreListedInKeyOrderWithAnyCharactersInKeys() {
        long term = acquireGranted("a", LONG);
        List<String> keys = List.of("display-1;camera-7", "b", "a b/c?d=e&f", "\u00e9t\u00e9 \"quoted\"", "%3B", "a");
        for (String key : keys) {
            assertThat(get(store.maps().fencedPut(group, "items", key, "a", term, bytes("v:" + key))).accepted())
                    .isTrue();
        }

        SortedMap<String, FencedValue> entries = get(open().maps().mapEntries(group, "items"));

        assertThat(entries.keySet()).containsExactlyElementsOf(new TreeSet<>(keys));
        entries.forEach((key, value) -> assertThat(text(value)).isEqualTo("v:" + key));
        assertThat(get(store.maps().mapEntries(group, "other"))).isEmpty();
        assertThat(get(store.maps().mapEntries("other-" + group, "items"))).isEmpty();
    }

    @Test
    void removeIsFencedAndIdempotent() {
        long term = acquireGranted("a", LONG);
        get(store.maps().fencedPut(group, "items", "k", "a", term, bytes("one")));

        assertThat(get(store.maps().fencedRemove(group, "items", "k", "a", term))).isEqualTo(new FencedMapWrite(true,
                term, true));
        assertThat(get(store.maps().fencedRemove(group, "items", "k", "a", term))).isEqualTo(new FencedMapWrite(true,
                term, false));
        assertThat(get(store.maps().mapGet(group, "items", "k"))).isEmpty();
    }

    @Test
    void aDeposedLeaderCannotPutOrRemoveMapEntries() {
        long old = acquireGranted("a", LONG);
        get(store.maps().fencedPut(group, "items", "kept", "a", old, bytes("by a")));
        get(store.leases().release(group, "a", old));
        long current = acquireGranted("b", LONG);

        FencedMapWrite put = get(store.maps().fencedPut(group, "items", "new", "a", old, bytes("stale")));
        FencedMapWrite remove = get(store.maps().fencedRemove(group, "items", "kept", "a", old));

        assertThat(put.accepted()).isFalse();
        assertThat(put.currentTerm()).isEqualTo(current);
        assertThat(remove.accepted()).isFalse();
        assertThat(get(store.maps().mapEntries(group, "items")).keySet()).containsExactly("kept");
        assertThat(text(get(store.maps().mapGet(group, "items", "kept")).orElseThrow())).isEqualTo("by a");
    }

    @Test
    void aMapTermNeverIssuedIsRefused() {
        assertThat(get(store.maps().fencedPut(group, "items", "k", "a", 0, bytes("x"))).accepted()).isFalse();
        long term = acquireGranted("a", LONG);

        assertThat(get(store.maps().fencedPut(group, "items", "k", "a", term + 1, bytes("x"))).accepted()).isFalse();
        assertThat(get(store.maps().mapEntries(group, "items"))).isEmpty();
    }

    // ---------------------------------------------------------------- event log

    @Test
    void eventsAreReadBackNewestFirstWithIncreasingIdsAndStoreTimestamps() {
        Instant before = Instant.now().minus(Duration.ofMinutes(1));
        get(store.events().appendEvent(group, "a", "election_started", Map.of()));
        get(store.events().appendEvent(group, "a", "leader_elected", Map.of("term", "7")));
        get(open().events().appendEvent(group, "b", "node_joined", Map.of("node", "b", "note",
                "quotes \" and \\ and \u00e9")));

        List<ClusterEvent> events = get(store.events().recentEvents(group, 10));

        assertThat(events).extracting(ClusterEvent::type)
                .containsExactly("node_joined", "leader_elected", "election_started");
        assertThat(events.get(0).id()).isGreaterThan(events.get(1).id());
        assertThat(events.get(1).id()).isGreaterThan(events.get(2).id());
        assertThat(events.get(0).nodeId()).isEqualTo("b");
        assertThat(events.get(0).data()).isEqualTo(Map.of("node", "b", "note", "quotes \" and \\ and \u00e9"));
        assertThat(events.get(1).data()).isEqualTo(Map.of("term", "7"));
        assertThat(events.get(2).data()).isEmpty();
        assertThat(events).allSatisfy(e -> assertThat(e.at()).isBetween(before, Instant.now().plus(Duration.ofMinutes(1))));
    }

    @Test
    void recentEventsHonoursTheLimitAndTheGroup() {
        for (int i = 0; i < 5; i++) {
            get(store.events().appendEvent(group, "a", "event_" + i, Map.of()));
        }
        get(store.events().appendEvent("other-" + group, "a", "elsewhere", Map.of()));

        assertThat(get(store.events().recentEvents(group, 2))).extracting(ClusterEvent::type)
                .containsExactly("event_4", "event_3");
        assertThat(get(store.events().recentEvents(group, 100))).hasSize(5);
        assertThat(get(store.events().recentEvents("never-" + group, 10))).isEmpty();
    }

    // ---------------------------------------------------------------- messaging

    @Test
    void publishedMessagesReachSubscribersUntilTheyClose() {
        String channel = "conformance:" + UUID.randomUUID();
        List<String> received = new CopyOnWriteArrayList<>();
        Subscription subscription = open().bus().subscribe(channel,
                message -> received.add(new String(message, StandardCharsets.UTF_8)));
        get(subscription.ready());

        get(store.bus().publish(channel, bytes("hello")));
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(received).containsExactly("hello"));

        subscription.close();
        get(store.bus().publish(channel, bytes("after close")));
        Subscription probe = store.bus().subscribe(channel, message -> { });
        get(probe.ready());
        assertThat(received).containsExactly("hello");
        probe.close();
    }
}

package dev.baton.core.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.core.Baton;
import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.Leadership;
import dev.baton.core.NodeInfo;
import dev.baton.core.StoreElection;
import dev.baton.core.memory.InMemoryStore;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.ForwardingStore;
import dev.baton.core.store.LeaseStore;
import dev.baton.core.store.RegistryStore;
import dev.baton.core.store.SessionStore;
import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import dev.baton.testkit.FaultInjectingStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Elections bound to the process's store session: many groups for the cost of one keep-alive, every leadership ended
 * together when the session ends, exclusion kept across a holder that vanished. Everything runs on a fake clock and a
 * deterministic scheduler, so each run is the same.
 */
class SessionBoundElectionTest {

    private final FakeClock clock = new FakeClock();
    private final DeterministicScheduler scheduler = new DeterministicScheduler(clock);
    private final InMemoryStore store = new InMemoryStore(clock);
    private final ElectionConfig config = ElectionConfig.fast();
    private final Random random = new Random(7);

    /** Counts every call made through a role, by method name. */
    private static final class CountingStore extends ForwardingStore {
        final Map<String, AtomicLong> calls = new ConcurrentHashMap<>();
        private final LeaseStore leases;
        private final RegistryStore registry;
        private final Optional<SessionStore> sessions;

        CountingStore(CoordinationStore delegate) {
            super(delegate);
            leases = counting(LeaseStore.class, delegate.leases());
            registry = counting(RegistryStore.class, delegate.registry());
            sessions = delegate.sessions().map(s -> counting(SessionStore.class, s));
        }

        private <T> T counting(Class<T> role, T target) {
            Class<?>[] roles = {role};
            return role.cast(Proxy.newProxyInstance(role.getClassLoader(), roles, (proxy, method, args) -> {
                calls.computeIfAbsent(role.getSimpleName() + "." + method.getName(), k -> new AtomicLong())
                        .incrementAndGet();
                try {
                    return method.invoke(target, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            }));
        }

        long count(String call) {
            AtomicLong n = calls.get(call);
            return n == null ? 0 : n.get();
        }

        long total() {
            return calls.values().stream().mapToLong(AtomicLong::get).sum();
        }

        @Override
        public LeaseStore leases() {
            return leases;
        }

        @Override
        public RegistryStore registry() {
            return registry;
        }

        @Override
        public Optional<SessionStore> sessions() {
            return sessions;
        }
    }

    /** One process: its elections on its own connection to the shared store, and what they heard. */
    private final class Process {
        final String id;
        final FaultInjectingStore link;
        final List<StoreElection> elections = new ArrayList<>();
        final List<ElectionEvent> events = new CopyOnWriteArrayList<>();
        /** The newest deadline each term reported through {@link ElectionMetrics#validUntil}. */
        final Map<Long, Long> validUntil = new ConcurrentHashMap<>();

        Process(String id, CoordinationStore through) {
            this.id = id;
            this.link = new FaultInjectingStore(through);
        }

        StoreElection join(String group) {
            StoreElection election = Baton.election(link).group(group).node(NodeInfo.of(id, "test-" + id))
                    .config(config).clock(clock).scheduler(scheduler).eventExecutor(Runnable::run)
                    .random(new Random(random.nextLong())).recordEvents(false).metrics(new ElectionMetrics() {
                        @Override
                        public void validUntil(long term, long deadlineNanos) {
                            validUntil.put(term, deadlineNanos);
                        }
                    }).build();
            election.addListener(events::add);
            elections.add(election);
            election.start();
            return election;
        }

        List<StoreElection> joinAll(List<String> groups) {
            groups.forEach(this::join);
            scheduler.runUntilIdle();
            return elections;
        }

        List<Leadership> leaderships() {
            return elections.stream().flatMap(e -> e.leadership().stream()).toList();
        }

        <T extends ElectionEvent> List<T> events(Class<T> type) {
            return events.stream().filter(type::isInstance).map(type::cast).toList();
        }
    }

    private static List<String> groups(int n) {
        List<String> groups = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            groups.add("g-" + i);
        }
        return groups;
    }

    @Test
    void manyGroupsCostOneKeepAlivePerRenewIntervalAndNothingPerGroup() {
        CountingStore counting = new CountingStore(store);
        Process a = new Process("a", counting);
        a.joinAll(groups(200));
        assertThat(a.elections).allSatisfy(e -> assertThat(e.isLeader()).isTrue());
        assertThat(a.elections).allSatisfy(e -> assertThat(((LeaseElection) e).sessionBound()).isTrue());
        assertThat(counting.count("SessionStore.open")).isEqualTo(1);
        counting.calls.clear();

        scheduler.advance(config.renewInterval().multipliedBy(10));

        assertThat(a.elections).allSatisfy(e -> assertThat(e.isLeader()).isTrue());
        assertThat(counting.count("SessionStore.keepAlive")).isBetween(9L, 11L);
        assertThat(counting.total()).as("every call in the window: %s", counting.calls)
                .isEqualTo(counting.count("SessionStore.keepAlive"));
    }

    @Test
    void everyLeaderReportsEachNewDeadlineOfTheSession() {
        Process a = new Process("a", store);
        a.joinAll(groups(5));
        List<Leadership> held = a.leaderships();
        long first = held.get(0).deadlineNanos();

        scheduler.advance(config.renewInterval().multipliedBy(3));

        assertThat(held.get(0).deadlineNanos()).isGreaterThan(first);
        assertThat(held).allSatisfy(l -> assertThat(a.validUntil.get(l.term())).isEqualTo(l.deadlineNanos()));
    }

    @Test
    void aSessionThatEndedOnTheStoreEndsEveryLeadershipBoundToItAtOnce() {
        Process a = new Process("a", store);
        a.joinAll(groups(20));
        List<Leadership> held = a.leaderships();
        assertThat(held).hasSize(20);
        String session = store.leases().read("g-0").join().orElseThrow().session();

        store.sessions().orElseThrow().close(session).join();
        scheduler.advance(config.renewInterval());

        assertThat(held).allSatisfy(l -> assertThat(l.isValid()).isFalse());
        assertThat(a.events(ElectionEvent.LeadershipLost.class)).hasSize(20)
                .allSatisfy(lost -> assertThat(lost.reason()).isEqualTo(LossReason.LEASE_TAKEN));
        scheduler.runUntilIdle();
        assertThat(a.leaderships()).hasSize(20);
        for (int i = 0; i < 20; i++) {
            assertThat(a.elections.get(i).leadership().orElseThrow().term()).isGreaterThan(held.get(i).term());
        }
        assertThat(store.leases().read("g-0").join().orElseThrow().session()).isNotEqualTo(session);
    }

    @Test
    void anUnreachableStoreEndsEveryLeadershipAtTheSessionsOneDeadline() {
        Process a = new Process("a", store);
        a.joinAll(groups(20));
        List<Leadership> held = a.leaderships();
        long deadline = held.get(0).deadlineNanos();
        assertThat(held).allSatisfy(l -> assertThat(l.deadlineNanos()).isEqualTo(deadline));

        a.link.hang();
        scheduler.advance(Duration.ofNanos(deadline - clock.nanoTime() - 1));
        assertThat(held).allSatisfy(l -> assertThat(l.isValid()).isTrue());
        assertThat(a.events(ElectionEvent.LeadershipLost.class)).isEmpty();
        scheduler.advance(Duration.ofNanos(1));

        assertThat(held).allSatisfy(l -> assertThat(l.isValid()).isFalse());
        assertThat(a.events(ElectionEvent.LeadershipLost.class)).hasSize(20)
                .allSatisfy(lost -> assertThat(lost.reason()).isEqualTo(LossReason.EXPIRED_LOCALLY));
    }

    @Test
    void everyElectionNamesASessionProblemUntilTheStoreAnswersAgain() {
        Process a = new Process("a", store);
        a.joinAll(groups(3));

        a.link.fail();
        scheduler.advance(config.renewInterval().plus(config.storeTimeout()));
        assertThat(a.elections).allSatisfy(e -> assertThat(e.problem()).hasValueSatisfying(
                problem -> assertThat(problem).contains("keeping the store session alive failed")));

        a.link.heal();
        scheduler.advance(config.renewInterval());
        assertThat(a.elections).allSatisfy(e -> assertThat(e.problem()).isEmpty());
    }

    @Test
    void whenTheHoldersProcessVanishesAnotherLeadsEveryGroupAndNeverTwoAtOnce() {
        Process a = new Process("a", store);
        Process b = new Process("b", store);
        List<String> groups = groups(10);
        a.joinAll(groups);
        b.joinAll(groups);
        assertThat(a.leaderships()).hasSize(10);
        assertThat(b.leaderships()).isEmpty();

        a.link.hang(); // paused or killed: it never hears from the store again
        Duration step = Duration.ofMillis(5);
        Duration bound = config.leaseTtl().plus(config.checkInterval()).plus(config.electionJitter())
                .plus(config.storeTimeout());
        for (long waited = 0; waited < bound.toNanos() && b.leaderships().size() < 10; waited += step.toNanos()) {
            scheduler.advance(step);
            for (int i = 0; i < groups.size(); i++) {
                boolean aLeads = a.elections.get(i).leadership().isPresent();
                boolean bLeads = b.elections.get(i).leadership().isPresent();
                assertThat(aLeads && bLeads).as("two valid leaders of %s at %s", groups.get(i), clock.elapsed())
                        .isFalse();
            }
        }

        assertThat(b.leaderships()).hasSize(10);
        assertThat(a.leaderships()).isEmpty();
    }

    @Test
    void followersWaitOnTheHoldersSessionOnceAndTakeEveryGroupSoonAfterItExpires() {
        Process a = new Process("a", store);
        CountingStore counting = new CountingStore(store);
        Process b = new Process("b", counting);
        List<String> groups = groups(50);
        a.joinAll(groups);
        b.joinAll(groups);
        long lastKeptAlive = clock.nanoTime();
        a.link.hang();
        counting.calls.clear();

        long started = clock.nanoTime();
        Duration step = Duration.ofMillis(5);
        while (b.leaderships().size() < groups.size() && clock.nanoTime() - started < config.leaseTtl().toNanos() * 3) {
            scheduler.advance(step);
        }

        assertThat(b.leaderships()).hasSize(50);
        // No time passed between a's session opening and the cut: it ends on the store one TTL after lastKeptAlive.
        Duration afterExpiry = Duration.ofNanos(clock.nanoTime() - lastKeptAlive).minus(config.leaseTtl());
        assertThat(afterExpiry).isLessThan(Duration.ofMillis(100));
        assertThat(counting.count("SessionStore.acquire")).as("%s", counting.calls).isLessThanOrEqualTo(50 + 5);
        assertThat(counting.count("SessionStore.remaining")).as("%s", counting.calls).isLessThanOrEqualTo(5);
    }

    @Test
    void closingManyTogetherHandsEveryGroupOverAtOnceAndEndsTheSession() {
        Process a = new Process("a", store);
        Process b = new Process("b", store);
        List<String> groups = groups(10);
        a.joinAll(groups);
        b.joinAll(groups);
        String session = store.leases().read("g-0").join().orElseThrow().session();

        Baton.closeAllAsync(a.elections);
        scheduler.runUntilIdle();

        assertThat(b.leaderships()).as("led elsewhere without waiting for any expiry").hasSize(10);
        assertThat(store.sessions().orElseThrow().remaining(Set.of(session)).join()).isEmpty();
    }

    @Test
    void aSecondOpenElectionOfTheSameGroupForTheSameNodeIsRefused() {
        Process a = new Process("a", store);
        StoreElection first = a.join("orders");

        assertThatThrownBy(() -> a.join("orders")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("orders");

        first.close();
        scheduler.runUntilIdle();
        assertThat(a.join("orders")).isNotNull();
    }

    @Test
    void theLeaderHearsMembersJoinAndLeaveWithTheirSessions() {
        Process a = new Process("a", store);
        a.joinAll(List.of("orders"));
        Process b = new Process("b", store);
        b.joinAll(List.of("orders"));

        assertThat(a.events(ElectionEvent.MemberJoined.class)).extracting(joined -> joined.member().id())
                .containsExactly("b");
        assertThat(a.elections.get(0).membership().members().join()).extracting(NodeInfo::id)
                .containsExactly("a", "b");

        b.link.hang();
        scheduler.advance(config.leaseTtl().plus(config.checkInterval().multipliedBy(2)));

        assertThat(a.events(ElectionEvent.MemberRemoved.class)).extracting(ElectionEvent.MemberRemoved::nodeId)
                .containsExactly("b");
    }

    @Test
    void aLeaderWhoseMemberListingFailedListsAgainWithoutWaitingForANotice() {
        CountingStore counting = new CountingStore(store);
        Process a = new Process("a", counting);
        a.link.holdNext("sessionMembers");
        a.joinAll(List.of("orders"));
        assertThat(a.elections.get(0).isLeader()).isTrue();

        scheduler.advance(config.storeTimeout());
        assertThat(counting.count("SessionStore.members")).as("the first listing never reached the store").isZero();

        scheduler.advance(config.checkInterval());
        assertThat(counting.count("SessionStore.members")).as("listed again after the failure").isEqualTo(1);
    }

    private Set<String> liveSessions() {
        return store.sessions().orElseThrow().remaining(Set.of("s1", "s2", "s3", "s4")).join().keySet();
    }

    @Test
    void aSessionOpenAnsweredAfterItsTimeoutIsUsedIfNoneIsOpenYet() {
        Process a = new Process("a", store);
        a.link.holdNextReply("open");
        a.joinAll(List.of("orders"));
        scheduler.advance(config.storeTimeout());
        assertThat(a.leaderships()).as("no session yet").isEmpty();

        // The store answers the timed-out open before the retry goes out.
        assertThat(a.link.deliverHeld()).isTrue();
        scheduler.advance(config.retryInterval());

        assertThat(a.leaderships()).extracting(Leadership::group).containsExactly("orders");
        assertThat(store.leases().read("orders").join().orElseThrow().session()).isEqualTo("s1");
        assertThat(liveSessions()).as("the retry opened none").containsExactly("s1");
    }

    @Test
    void aSessionOpenAnsweredAfterTheRetryWasTakenIsClosedAtOnce() {
        Process a = new Process("a", store);
        a.link.holdNextReply("open");
        a.joinAll(List.of("orders"));
        scheduler.advance(config.storeTimeout().plus(config.retryInterval()));
        assertThat(store.leases().read("orders").join().orElseThrow().session()).isEqualTo("s2");

        assertThat(a.link.deliverHeld()).isTrue();
        scheduler.runUntilIdle();

        assertThat(liveSessions()).as("the late one ended, not left to expire as a ghost member")
                .containsExactly("s2");
        assertThat(a.leaderships()).extracting(Leadership::group).containsExactly("orders");
    }
}

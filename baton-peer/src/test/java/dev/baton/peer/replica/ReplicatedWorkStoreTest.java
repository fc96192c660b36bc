package dev.baton.peer.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.core.Leadership;
import dev.baton.core.store.FencedMapWrite;
import dev.baton.core.store.FencedValue;
import dev.baton.core.store.StoreTimeoutException;
import dev.baton.peer.sim.LinkConditions;
import dev.baton.peer.sim.NodeScheduler;
import dev.baton.peer.sim.SimulatedNetwork;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The replicated maps on the simulated network: three members, each a {@link ReplicatedWorkStore} whose leadership
 * the test sets by hand (as an election would), under virtual time.
 */
class ReplicatedWorkStoreTest {

    static final String GROUP = "cameras";
    static final String MAP = "items";
    static final PeerAddress A = PeerAddress.of("n1", 7500);
    static final PeerAddress B = PeerAddress.of("n2", 7500);
    static final PeerAddress C = PeerAddress.of("n3", 7500);
    static final Duration WRITE_TIMEOUT = Duration.ofSeconds(2);

    private final FakeClock clock = new FakeClock();
    private final DeterministicScheduler scheduler = new DeterministicScheduler(clock);
    private SimulatedNetwork<ReplicaMessage> network;
    private final Map<PeerAddress, Member> members = new HashMap<>();

    /** One member: its store, its own scheduler (so it can crash) and the leadership the test gives it. */
    final class Member implements ReplicaGroup {
        final PeerAddress address;
        final NodeScheduler tasks = new NodeScheduler(scheduler);
        final ReplicatedWorkStore store;
        volatile Leadership leadership;

        Member(PeerAddress address, Transport<ReplicaMessage> transport) {
            this.address = address;
            this.store = ReplicatedWorkStore.builder(GROUP, this, transport).scheduler(tasks)
                    .clock(clock).writeTimeout(WRITE_TIMEOUT).build();
        }

        @Override
        public Optional<Leadership> leadership() {
            return Optional.ofNullable(leadership);
        }

        @Override
        public CompletableFuture<Set<PeerAddress>> replicas() {
            return CompletableFuture.completedFuture(Set.of(A, B, C));
        }

        @Override
        public int majority(int known) {
            return 2;
        }

        /** This member's election now leads in {@code term} (its deadline far away, as the test decides when it ends). */
        void leads(long term) {
            leadership = new Leadership(GROUP, address.format(), term, clock.nanoTime() + Duration.ofHours(1).toNanos(),
                    clock, t -> t == term);
        }

        CompletableFuture<FencedMapWrite> put(String key, String value, long term) {
            return store.fencedPut(GROUP, MAP, key, address.format(), term, value.getBytes(StandardCharsets.UTF_8));
        }

        CompletableFuture<FencedMapWrite> remove(String key, long term) {
            return store.fencedRemove(GROUP, MAP, key, address.format(), term);
        }

        Optional<String> read(String key) {
            CompletableFuture<Optional<FencedValue>> value = store.mapGet(GROUP, MAP, key);
            settle();
            return value.join().map(v -> new String(v.value(), StandardCharsets.UTF_8));
        }
    }

    @BeforeEach
    void threeMembers() {
        network = SimulatedNetwork.<ReplicaMessage>builder(scheduler, clock, new Random(7))
                .defaultLink(LinkConditions.delayed(Duration.ofMillis(1), Duration.ofMillis(5)))
                .codec(ReplicatedWorkStore.codec())
                .build();
        for (PeerAddress address : List.of(A, B, C)) {
            Member member = new Member(address, network.transport(address));
            members.put(address, member);
            member.store.start();
        }
    }

    private Member member(PeerAddress address) {
        return members.get(address);
    }

    /** Runs the network and the stores' timers for a while of virtual time. */
    private void settle() {
        scheduler.advance(Duration.ofMillis(300));
    }

    private static <T> T done(CompletableFuture<T> future) {
        assertThat(future).isDone();
        return future.join();
    }

    @Test
    void aWriteHeldByAMajorityIsAcknowledgedAndEveryReplicaReadsIt() {
        member(A).leads(1);
        CompletableFuture<FencedMapWrite> write = member(A).put("camera-1", "rtsp://one", 1);
        settle();

        assertThat(done(write)).isEqualTo(new FencedMapWrite(true, 1, false));
        for (PeerAddress address : List.of(A, B, C)) {
            assertThat(member(address).read("camera-1")).as(address.format()).contains("rtsp://one");
        }
        CompletableFuture<Optional<FencedValue>> written = member(B).store.mapGet(GROUP, MAP, "camera-1");
        settle();
        assertThat(done(written)).get().satisfies(v -> {
            assertThat(v.term()).isEqualTo(1);
            assertThat(v.writer()).isEqualTo(A.format());
        });
    }

    @Test
    void aWriteThatReachedOnlyAMinorityIsNotAcknowledged() {
        member(A).leads(1);
        settle(); // caught up with B and C
        network.cut(A, B);
        network.cut(A, C);

        CompletableFuture<FencedMapWrite> write = member(A).put("camera-1", "rtsp://one", 1);
        settle();
        assertThat(write).isNotDone();
        scheduler.advance(WRITE_TIMEOUT);

        assertThat(write).isCompletedExceptionally();
        assertThat(write.handle((ok, error) -> error).join()).isInstanceOf(StoreTimeoutException.class);
        assertThat(member(B).read("camera-1")).isEmpty();
    }

    @Test
    void writesUnderAnyTermButTheOneThisMemberLeadsAreRefused() {
        member(A).leads(3);
        CompletableFuture<FencedMapWrite> stale = member(A).put("camera-1", "rtsp://one", 2);
        CompletableFuture<FencedMapWrite> follower = member(B).put("camera-1", "rtsp://one", 3);
        settle();

        assertThat(done(stale)).isEqualTo(new FencedMapWrite(false, 3, false));
        assertThat(done(follower).accepted()).isFalse();
        assertThat(member(C).read("camera-1")).isEmpty();
    }

    @Test
    void theReplicasRefuseADeposedLeadersWrites() {
        member(A).leads(1);
        assertThat(done(write(member(A).put("camera-1", "rtsp://one", 1))).accepted()).isTrue();
        network.partition(Set.of(A), Set.of(B, C));
        member(B).leads(2);   // A's election has not noticed yet: it still believes it leads term 1
        settle();
        network.heal();

        CompletableFuture<FencedMapWrite> late = member(A).put("camera-1", "rtsp://late", 1);
        settle();

        assertThat(late).isCompletedExceptionally();
        assertThat(member(B).read("camera-1")).contains("rtsp://one");
        assertThat(member(C).read("camera-1")).contains("rtsp://one");
        CompletableFuture<FencedMapWrite> again = member(A).put("camera-1", "rtsp://late", 1);
        settle();
        assertThat(done(again)).isEqualTo(new FencedMapWrite(false, 2, false));
    }

    @Test
    void whenTwoMembersBelieveTheyLeadTheSameTermTheFirstToReachTheReplicasKeepsIt() {
        member(A).leads(2);
        settle();              // every replica holds A's state of term 2
        member(B).leads(2);    // as two bully nodes that each issue their own terms could

        CompletableFuture<FencedMapWrite> second = member(B).put("camera-1", "rtsp://from-b", 2);
        CompletableFuture<FencedMapWrite> first = member(A).put("camera-1", "rtsp://from-a", 2);
        settle();

        assertThat(done(second).accepted()).isFalse();
        assertThat(done(first).accepted()).isTrue();
        assertThat(member(C).read("camera-1")).contains("rtsp://from-a");
        assertThat(member(B).read("camera-1")).contains("rtsp://from-a");
    }

    @Test
    void aNewLeaderCatchesUpWithTheNewestAcknowledgedWrite() {
        member(A).leads(1);
        assertThat(done(write(member(A).put("camera-1", "rtsp://one", 1))).accepted()).isTrue();
        network.cut(A, C);    // C keeps the first value; A and B hold the second
        assertThat(done(write(member(A).put("camera-1", "rtsp://two", 1))).accepted()).isTrue();
        assertThat(done(write(member(A).remove("camera-2-never-written", 1))).existed()).isFalse();
        assertThat(done(write(member(A).put("camera-3", "rtsp://three", 1))).accepted()).isTrue();
        assertThat(done(write(member(A).remove("camera-3", 1))).existed()).isTrue();
        crash(A);

        member(C).leads(2);
        CompletableFuture<Optional<FencedValue>> read = member(C).store.mapGet(GROUP, MAP, "camera-1");
        settle();

        assertThat(done(read)).get().satisfies(v -> assertThat(new String(v.value(), StandardCharsets.UTF_8))
                .isEqualTo("rtsp://two"));
        assertThat(member(C).read("camera-3")).isEmpty();
        assertThat(done(write(member(C).put("camera-4", "rtsp://four", 2))).accepted()).isTrue();
        assertThat(member(B).read("camera-1")).contains("rtsp://two");
        assertThat(member(B).read("camera-4")).contains("rtsp://four");
    }

    @Test
    void aLeadersReadsWaitForItsCatchUp() {
        member(A).leads(1);
        assertThat(done(write(member(A).put("camera-1", "rtsp://one", 1))).accepted()).isTrue();
        network.cut(A, C);
        assertThat(done(write(member(A).put("camera-1", "rtsp://two", 1))).accepted()).isTrue();
        crash(A);
        network.partition(Set.of(B), Set.of(C));   // C alone is no majority: it cannot catch up

        member(C).leads(2);
        CompletableFuture<Optional<FencedValue>> read = member(C).store.mapGet(GROUP, MAP, "camera-1");
        settle();
        assertThat(read).isNotDone();   // it would have answered the older "rtsp://one"

        network.heal();
        settle();
        assertThat(done(read)).get().satisfies(v -> assertThat(new String(v.value(), StandardCharsets.UTF_8))
                .isEqualTo("rtsp://two"));
    }

    @Test
    void aMemberThatMissedWritesIsBroughtUpToDate() {
        member(A).leads(1);
        settle();
        network.cut(A, C);
        assertThat(done(write(member(A).put("camera-1", "rtsp://one", 1))).accepted()).isTrue();
        network.restore(A, C);
        assertThat(done(write(member(A).put("camera-2", "rtsp://two", 1))).accepted()).isTrue();
        settle();

        assertThat(member(C).read("camera-1")).contains("rtsp://one");
        assertThat(member(C).read("camera-2")).contains("rtsp://two");
    }

    @Test
    void aRollingRestartLosesNothingEvenWithoutWritesBetweenTheRestarts() {
        member(A).leads(1);
        assertThat(done(write(member(A).put("camera-1", "rtsp://one", 1))).accepted()).isTrue();

        restart(C);
        settle();   // the leader's periodic check finds C empty and pushes it the state
        restart(B);
        settle();
        crash(A);
        member(B).leads(2);   // B and C both restarted since the write; A, which took it, is gone

        assertThat(member(B).read("camera-1")).contains("rtsp://one");
    }

    @Test
    void aMemberThatRestartedEmptyAnswersReadsOnlyOnceALeaderPushedItTheState() {
        member(A).leads(1);
        assertThat(done(write(member(A).put("camera-1", "rtsp://one", 1))).accepted()).isTrue();
        network.partition(Set.of(A, B), Set.of(C));
        restart(C);

        CompletableFuture<Optional<FencedValue>> read = member(C).store.mapGet(GROUP, MAP, "camera-1");
        CompletableFuture<Long> holding = member(C).store.holdingState();
        settle();
        assertThat(read).as("an empty replica would say the acknowledged write is missing").isNotDone();
        assertThat(holding).as("C holds no state yet").isNotDone();

        network.heal();   // the leader's periodic check finds C empty and pushes it the state
        settle();
        assertThat(done(read)).get().satisfies(v -> assertThat(new String(v.value(), StandardCharsets.UTF_8))
                .isEqualTo("rtsp://one"));
        assertThat(done(holding)).as("the term whose state C took").isEqualTo(1L);
    }

    @Test
    void aReadOnALeaderThatRestartedEmptyAndWasDeposedBeforeItCaughtUpWaitsForAState() {
        // What the fault harness found: the read waited for the term's catch-up, the term ended instead, and the read
        // was answered from the empty replica, an acknowledged write shown as missing.
        member(A).leads(1);
        assertThat(done(write(member(A).put("camera-1", "rtsp://one", 1))).accepted()).isTrue();
        network.partition(Set.of(A, B), Set.of(C));
        restart(C);
        member(A).leadership = null;
        member(C).leads(2);   // alone, C cannot catch up

        CompletableFuture<Optional<FencedValue>> read = member(C).store.mapGet(GROUP, MAP, "camera-1");
        settle();
        assertThat(read).isNotDone();
        member(C).leadership = null;   // deposed before it caught up
        settle();
        assertThat(read).as("its replica is still empty").isNotDone();

        network.heal();
        member(B).leads(3);   // catches up from A and B, and pushes C the state
        settle();
        assertThat(done(read)).get().satisfies(v -> assertThat(new String(v.value(), StandardCharsets.UTF_8))
                .isEqualTo("rtsp://one"));
    }

    @Test
    void aReadOnAMemberThatNoLeaderPushedAStateFailsAfterTheWriteTimeoutNamingWhy() {
        member(A).leads(1);
        assertThat(done(write(member(A).put("camera-1", "rtsp://one", 1))).accepted()).isTrue();
        network.partition(Set.of(A, B), Set.of(C));
        restart(C);

        CompletableFuture<Optional<FencedValue>> read = member(C).store.mapGet(GROUP, MAP, "camera-1");
        scheduler.advance(WRITE_TIMEOUT.plusMillis(100));
        assertThat(read).isCompletedExceptionally();
        assertThatThrownBy(read::join).hasCauseInstanceOf(StoreTimeoutException.class)
                .hasMessageContaining("started empty and no leader has pushed it the state yet");
    }

    @Test
    void aMemberThatRestartedEmptyIsNoVoteInANewLeadersCatchUp() {
        member(A).leads(1);
        settle();
        network.cut(A, C);
        assertThat(done(write(member(A).put("camera-1", "rtsp://one", 1))).accepted()).isTrue();   // A and B hold it
        network.partition(Set.of(A), Set.of(B, C));   // A is cut off before it can push B the state again
        restart(B);

        member(C).leads(2);
        CompletableFuture<Optional<FencedValue>> read = member(C).store.mapGet(GROUP, MAP, "camera-1");
        settle();
        assertThat(read).as("C and the empty B are no majority that holds a state").isNotDone();

        network.heal();   // A, which still holds the write, answers C's catch-up
        settle();
        assertThat(done(read)).get().satisfies(v -> assertThat(new String(v.value(), StandardCharsets.UTF_8))
                .isEqualTo("rtsp://one"));
        assertThat(member(B).read("camera-1")).contains("rtsp://one");
    }

    @Test
    void aMemberThatRestartedEmptyTakesNoStateFromADeposedLeader() {
        member(A).leads(1);
        settle();
        network.partition(Set.of(A), Set.of(B, C));
        member(B).leads(2);   // A's election has not noticed: it still believes it leads term 1
        assertThat(done(write(member(B).put("camera-1", "rtsp://two", 2))).accepted()).isTrue();
        network.partition(Set.of(A, C), Set.of(B));
        restart(C);           // C forgets that it answered term 2; only the deposed A reaches it

        CompletableFuture<FencedMapWrite> stale = member(A).put("camera-1", "rtsp://stale", 1);
        settle();
        assertThat(stale).as("C takes neither A's old state nor its write before it knows the newest term")
                .isNotDone();

        network.heal();   // C learns term 2 from B, refuses A, and B pushes it the state
        scheduler.advance(WRITE_TIMEOUT);
        assertThat(stale).isCompletedExceptionally();
        assertThat(member(C).read("camera-1")).contains("rtsp://two");
        crash(B);
        member(C).leads(3);
        assertThat(member(C).read("camera-1")).contains("rtsp://two");
    }

    @Test
    void aGroupThatStartsEmptyFormsItsStateOnceEveryMemberHasAnswered() {
        network.partition(Set.of(A, B), Set.of(C));
        member(A).leads(1);
        CompletableFuture<FencedMapWrite> write = member(A).put("camera-1", "rtsp://one", 1);
        settle();
        assertThat(write).as("A and B hold no state: for all they know, C holds the group's").isNotDone();

        network.heal();
        settle();
        assertThat(done(write).accepted()).isTrue();
        for (PeerAddress address : List.of(A, B, C)) {
            assertThat(member(address).read("camera-1")).as(address.format()).contains("rtsp://one");
        }
    }

    @Test
    void aGroupWhoseEveryMemberRestartedStartsAgainFromWhatIsLeft() {
        member(A).leads(1);
        assertThat(done(write(member(A).put("camera-1", "rtsp://one", 1))).accepted()).isTrue();
        restart(A);
        restart(B);
        restart(C);

        member(B).leads(2);
        CompletableFuture<Optional<FencedValue>> read = member(B).store.mapGet(GROUP, MAP, "camera-1");
        settle();
        assertThat(done(read)).as("the replicas lived in memory").isEmpty();
        assertThat(done(write(member(B).put("camera-2", "rtsp://two", 2))).accepted()).isTrue();
    }

    @Test
    void aPublishedMessageReachesTheSubscribersOfEveryMember() {
        Map<PeerAddress, List<String>> received = new HashMap<>();
        for (PeerAddress address : List.of(A, B, C)) {
            List<String> inbox = new ArrayList<>();
            received.put(address, inbox);
            member(address).store.subscribe("worker:master:commands",
                    bytes -> inbox.add(new String(bytes, StandardCharsets.UTF_8)));
        }
        member(B).store.subscribe("another-channel", bytes -> received.get(B).add("wrong channel"));

        member(B).store.publish("worker:master:commands", "regenerate".getBytes(StandardCharsets.UTF_8));
        settle();

        assertThat(received).allSatisfy((address, inbox) -> assertThat(inbox).containsExactly("regenerate"));
    }

    private <T> CompletableFuture<T> write(CompletableFuture<T> write) {
        settle();
        return write;
    }

    /** The member starts again with nothing: its replica lived in memory. */
    private void restart(PeerAddress address) {
        crash(address);
        Member fresh = new Member(address, network.restart(address));
        members.put(address, fresh);
        fresh.store.start();
    }

    private void crash(PeerAddress address) {
        member(address).tasks.crash();
        network.crash(address);
    }
}

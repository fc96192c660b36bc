package dev.baton.peer.bully;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.Capabilities;
import dev.baton.core.ElectionEvent.MemberJoined;
import dev.baton.core.ElectionEvent.MemberRemoved;
import dev.baton.core.ElectionEvent.MemberStateChanged;
import dev.baton.core.MemberState;
import dev.baton.core.NodeInfo;
import dev.baton.core.spi.EventDispatcher;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import dev.baton.peer.MemberCard;
import dev.baton.peer.bully.BullyMessage.Join;
import dev.baton.peer.bully.BullyMessage.JoinAccepted;
import dev.baton.peer.bully.BullyMessage.JoinRefusal;
import dev.baton.peer.bully.BullyMessage.JoinRefused;
import dev.baton.peer.bully.BullyMessage.Table;
import dev.baton.peer.bully.Effects.Effect;
import dev.baton.peer.bully.Effects.Joined;
import dev.baton.peer.bully.Effects.Removed;
import dev.baton.peer.bully.Effects.Send;
import dev.baton.peer.bully.Effects.StateChanged;
import dev.baton.peer.internal.NodeOutput;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The leader's table steps change the table and return what to send and tell, in order, without sending anything
 * themselves; the driver performs the effects in exactly that order.
 */
class LeaderTableTest {

    private static final PeerAddress LEADER = PeerAddress.of("n1", 7400);
    private static final PeerAddress N2 = PeerAddress.of("n2", 7400);
    private static final PeerAddress N3 = PeerAddress.of("n3", 7400);
    private static final long TERM = 5;

    private final FakeClock clock = new FakeClock();
    private final StubContext context = new StubContext(clock);
    private final GroupView view = new GroupView(LEADER, BullyConfig.fast().build());
    private LeaderTable table;

    @BeforeEach
    void leaderOfANewGroup() {
        view.watchWith(new FailureDetector(context, new FailureDetector.Verdicts() {
            @Override
            public long term() {
                return view.term();
            }

            @Override
            public long pid() {
                return view.pid();
            }

            @Override
            public void suspected(PeerAddress address) {
            }

            @Override
            public void recovered(PeerAddress address) {
            }

            @Override
            public void confirmedFailed(PeerAddress address) {
            }
        }));
        view.pid(1);
        view.enterTerm(TERM);
        view.table.found(LEADER, 1, 11, card("n1"), 0);
        table = new LeaderTable(view, LEADER, clock);
    }

    @Test
    void aJoinerIsAdmittedUnderTheNextPidTheOthersGetTheTableAndTheJoinerItsAnswerLast() {
        table.join(N2, new Join(22, card("n2")));

        List<Effect> effects = table.join(N3, new Join(33, card("n3"))).list();

        assertThat(effects).hasSize(3);
        assertThat(effects.get(0)).isInstanceOfSatisfying(Joined.class,
                j -> assertThat(j.member().id()).isEqualTo("n3:7400"));
        assertThat(effects.get(1)).isInstanceOfSatisfying(Send.class, s -> {
            assertThat(s.to()).isEqualTo(N2);
            assertThat(s.message()).isInstanceOf(Table.class);
        });
        assertThat(effects.get(2)).isInstanceOfSatisfying(Send.class, s -> {
            assertThat(s.to()).isEqualTo(N3);
            assertThat(s.message()).isInstanceOfSatisfying(JoinAccepted.class, a -> {
                assertThat(a.pid()).isEqualTo(3);
                assertThat(a.term()).isEqualTo(TERM);
                assertThat(a.members()).hasSize(3);
            });
        });
        assertThat(context.sent).as("a step sends nothing itself").isEmpty();
    }

    @Test
    void theSameProcessJoiningAgainKeepsItsPidAndAnotherProcessOnItsAddressIsRefused() {
        table.join(N2, new Join(22, card("n2")));

        assertThat(table.join(N2, new Join(22, card("n2"))).list()).singleElement()
                .isInstanceOfSatisfying(Send.class, s -> assertThat(s.message())
                        .isInstanceOfSatisfying(JoinAccepted.class, a -> assertThat(a.pid()).isEqualTo(2)));
        assertThat(table.join(N2, new Join(99, card("n2"))).list()).singleElement()
                .isInstanceOfSatisfying(Send.class, s -> assertThat(s.message())
                        .isEqualTo(new JoinRefused(TERM, JoinRefusal.ADDRESS_IN_USE)));
    }

    @Test
    void membersMoveThroughTheirStatesAndEachChangeIsFollowedByTheTable() {
        table.join(N2, new Join(22, card("n2")));
        table.join(N3, new Join(33, card("n3")));
        NodeInfo n2 = GroupTable.nodeInfo(view.table.get(N2), LEADER);

        assertThat(table.memberPinged(N2, 2).list()).satisfiesExactly(
                e -> assertThat(e).isEqualTo(new StateChanged(n2, MemberState.JOINING, MemberState.ACTIVE)),
                e -> assertThat(e).isInstanceOfSatisfying(Send.class, s -> assertThat(s.to()).isEqualTo(N2)),
                e -> assertThat(e).isInstanceOfSatisfying(Send.class, s -> assertThat(s.to()).isEqualTo(N3)));
        assertThat(table.suspected(N2).list()).first()
                .isEqualTo(new StateChanged(n2, MemberState.ACTIVE, MemberState.UNREACHABLE));
        assertThat(table.recovered(N2).list()).first()
                .isEqualTo(new StateChanged(n2, MemberState.UNREACHABLE, MemberState.ACTIVE));
        assertThat(table.left(N2).list()).satisfiesExactly(
                e -> assertThat(e).isEqualTo(new StateChanged(n2, MemberState.ACTIVE, MemberState.LEAVING)),
                e -> assertThat(e).isEqualTo(new Removed("n2:7400")),
                e -> assertThat(e).isInstanceOfSatisfying(Send.class, s -> assertThat(s.to()).isEqualTo(N3)));
        assertThat(view.table.get(N2)).isNull();
    }

    @Test
    void aRemovedMemberThatStillPingsIsSentTheTableInsteadOfBeingActivated() {
        assertThat(table.memberPinged(N2, 2).list()).singleElement()
                .isInstanceOfSatisfying(Send.class, s -> assertThat(s.message()).isInstanceOf(Table.class));
    }

    @Test
    void theDriverPerformsMessagesAndEventsInTheOrderTheStepRecordedThem() {
        List<String> order = new ArrayList<>();
        context.onSend = (to, message) -> order.add("send " + message.getClass().getSimpleName() + " to " + to);
        context.events.add(event -> order.add("event " + event.getClass().getSimpleName()));
        table.join(N2, new Join(22, card("n2"))).performOn(context);

        table.join(N3, new Join(33, card("n3"))).performOn(context);

        assertThat(order).containsExactly(
                "event " + MemberJoined.class.getSimpleName(), "send JoinAccepted to n2:7400",
                "event " + MemberJoined.class.getSimpleName(), "send Table to n2:7400",
                "send JoinAccepted to n3:7400");
        table.left(N2).performOn(context);
        assertThat(order.subList(5, order.size())).containsExactly(
                "event " + MemberStateChanged.class.getSimpleName(), "event " + MemberRemoved.class.getSimpleName(),
                "send Table to n3:7400");
    }

    private static MemberCard card(String name) {
        return new MemberCard(name, null, Capabilities.DEFAULT, Map.of());
    }

    /** A context that records what is sent and delivers events on the calling thread. */
    private static final class StubContext implements PhaseContext {
        final List<Send> sent = new ArrayList<>();
        final EventDispatcher events = new EventDispatcher(Runnable::run);
        final FakeClock clock;
        final DeterministicScheduler scheduler;
        final NodeOutput output;
        java.util.function.BiConsumer<PeerAddress, BullyMessage> onSend = (to, message) -> { };

        StubContext(FakeClock clock) {
            this.clock = clock;
            this.scheduler = new DeterministicScheduler(clock);
            this.output = new NodeOutput(events, clock);
        }

        @Override
        public String group() {
            return "g";
        }

        @Override
        public PeerAddress self() {
            return LEADER;
        }

        @Override
        public long incarnation() {
            return 11;
        }

        @Override
        public MemberCard card() {
            return LeaderTableTest.card("n1");
        }

        @Override
        public BullyConfig config() {
            return BullyConfig.fast().build();
        }

        @Override
        public Clock clock() {
            return clock;
        }

        @Override
        public Scheduler scheduler() {
            return scheduler;
        }

        @Override
        public Random random() {
            return new Random(1);
        }

        @Override
        public LeaderStoreCalls store() {
            throw new UnsupportedOperationException("the table steps use no store");
        }

        @Override
        public NodeOutput output() {
            return output;
        }

        @Override
        public void send(PeerAddress to, BullyMessage message) {
            sent.add(new Send(to, message));
            onSend.accept(to, message);
        }

        @Override
        public void broadcast(BullyMessage message) {
            throw new UnsupportedOperationException("the table steps address each member");
        }

        @Override
        public void storeFailed(String failure) {
        }

        @Override
        public void problemSolved() {
        }

        @Override
        public void reportError(String message) {
        }
    }
}

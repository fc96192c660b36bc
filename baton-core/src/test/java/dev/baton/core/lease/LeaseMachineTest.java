package dev.baton.core.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.NodeState;
import dev.baton.core.spi.LeaseDeadline;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.Lease;
import dev.baton.core.store.LeaseNotice;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The lease election's decisions, read straight off its step function: each test feeds inputs at chosen times and
 * checks the actions answered and the wake-up asked for. Nothing runs: no store, no scheduler, no listener.
 */
class LeaseMachineTest {

    private final ElectionConfig config = ElectionConfig.fast();
    private final long ttlValidity = config.localValidity().toNanos();
    private long now = 1_000_000_000L;

    private LeaseMachine machine(boolean sessionBound) {
        return new LeaseMachine("orders", "a", config, new Random(7), sessionBound);
    }

    private LeaseMachine.Step step(LeaseMachine machine, LeaseInput input) {
        return machine.step(input, now, Instant.EPOCH);
    }

    private static <T extends LeaseAction> List<T> actions(LeaseMachine.Step step, Class<T> type) {
        return step.actions().stream().filter(type::isInstance).map(type::cast).toList();
    }

    private static <T extends LeaseAction> T only(LeaseMachine.Step step, Class<T> type) {
        List<T> matching = actions(step, type);
        assertThat(matching).as("%s in %s", type.getSimpleName(), step.actions()).hasSize(1);
        return matching.get(0);
    }

    private static List<ElectionEvent> events(LeaseMachine.Step step) {
        return actions(step, LeaseAction.Emit.class).stream().map(LeaseAction.Emit::event).toList();
    }

    /** Starts {@code machine} and grants its first acquire at {@code now}: it leads term {@code term}. */
    private LeaseMachine.Step leader(LeaseMachine machine, SessionKeeper.Session session, long term) {
        if (session != null) {
            step(machine, new LeaseInput.SessionOpened(session));
        }
        LeaseMachine.Step started = step(machine, new LeaseInput.Start());
        LeaseAction.Acquire acquire = only(started, LeaseAction.Acquire.class);
        return step(machine, new LeaseInput.AcquireReplied(acquire.call(), now, session,
                new AcquireResult.Granted(term), null));
    }

    @Test
    void startingAsksForTheLeaseBeforeAnnouncingTheElectionOrRegistering() {
        LeaseMachine.Step started = step(machine(false), new LeaseInput.Start());

        assertThat(started.actions()).extracting(a -> a.getClass().getSimpleName())
                .containsSubsequence("Started", "Watch", "Acquire", "Emit", "Members");
        assertThat(started.wakeAt()).as("nothing to wake for while the acquire is out").isEmpty();
    }

    @Test
    void aGrantLeadsUntilTheLocalDeadlineAndRenewsAtTheRenewInterval() {
        LeaseMachine machine = machine(false);
        LeaseMachine.Step granted = leader(machine, null, 3);

        LeaseAction.Lead lead = only(granted, LeaseAction.Lead.class);
        assertThat(lead.term()).isEqualTo(3);
        assertThat(lead.deadline().nanos()).isEqualTo(now + ttlValidity);
        // The validity is reported before the leadership is published: a checker never sees it valid unannounced.
        assertThat(granted.actions().indexOf(only(granted, LeaseAction.ValidUntil.class)))
                .isLessThan(granted.actions().indexOf(lead));
        assertThat(granted.wakeAt()).hasValue(now + config.renewInterval().toNanos());

        now += config.renewInterval().toNanos();
        LeaseAction.Renew renew = only(step(machine, new LeaseInput.Tick()), LeaseAction.Renew.class);
        assertThat(renew.term()).isEqualTo(3);
        assertThat(renew.timeout()).isEqualTo(config.storeTimeout());
    }

    @Test
    void aLeaderWhoseRenewalsFailEndsExactlyAtItsDeadlineNotBefore() {
        LeaseMachine machine = machine(false);
        long deadline = now + ttlValidity;
        LeaseMachine.Step last = leader(machine, null, 1);
        // Every renewal fails; the machine retries until the wake-up it asks for is the deadline itself.
        while (last.wakeAt().orElseThrow() - deadline < 0) {
            now = last.wakeAt().orElseThrow();
            last = step(machine, new LeaseInput.Tick());
            assertThat(events(last)).noneMatch(ElectionEvent.LeadershipLost.class::isInstance);
            for (LeaseAction.Renew renew : actions(last, LeaseAction.Renew.class)) {
                last = step(machine, new LeaseInput.RenewReplied(renew.call(), null,
                        new IllegalStateException("store down")));
            }
        }
        assertThat(last.wakeAt()).hasValue(deadline);
        now = deadline - 1;
        assertThat(events(step(machine, new LeaseInput.Tick())))
                .noneMatch(ElectionEvent.LeadershipLost.class::isInstance);
        now = deadline;

        LeaseMachine.Step atDeadline = step(machine, new LeaseInput.Tick());

        assertThat(events(atDeadline)).filteredOn(ElectionEvent.LeadershipLost.class::isInstance)
                .singleElement().extracting(e -> ((ElectionEvent.LeadershipLost) e).reason())
                .isEqualTo(LossReason.EXPIRED_LOCALLY);
        assertThat(machine.phase()).isInstanceOf(LeaseMachine.Following.class);
    }

    @Test
    void aRenewalReplyFromAnEndedLeadershipIsIgnored() {
        LeaseMachine machine = machine(false);
        leader(machine, null, 1);
        now += config.renewInterval().toNanos();
        LeaseAction.Renew first = only(step(machine, new LeaseInput.Tick()), LeaseAction.Renew.class);
        // A notice of a newer term makes the leader ask again at once: only the newest renewal's reply counts.
        LeaseAction.Renew second = only(step(machine, new LeaseInput.Notice(
                new LeaseNotice(LeaseNotice.Kind.ACQUIRED, "b", 2))), LeaseAction.Renew.class);
        assertThat(second.call()).isNotEqualTo(first.call());

        assertThat(step(machine, new LeaseInput.RenewReplied(first.call(), false, null)).actions()).isEmpty();
        assertThat(machine.phase()).isInstanceOf(LeaseMachine.Leading.class);

        LeaseMachine.Step lost = step(machine, new LeaseInput.RenewReplied(second.call(), false, null));
        assertThat(events(lost)).filteredOn(ElectionEvent.LeadershipLost.class::isInstance).singleElement()
                .extracting(e -> ((ElectionEvent.LeadershipLost) e).reason()).isEqualTo(LossReason.LEASE_TAKEN);
    }

    @Test
    void aGrantForACallNoLongerWaitedForIsHandedBack() {
        LeaseMachine machine = machine(false);
        LeaseAction.Acquire acquire = only(step(machine, new LeaseInput.Start()), LeaseAction.Acquire.class);
        CompletableFuture<Void> closed = new CompletableFuture<>();
        step(machine, new LeaseInput.Close(false, () -> closed.complete(null)));

        LeaseMachine.Step late = step(machine, new LeaseInput.AcquireReplied(acquire.call(), now, null,
                new AcquireResult.Granted(4), null));

        assertThat(late.actions()).containsExactly(new LeaseAction.Release(4, null, null));
    }

    @Test
    void aGracefulReleaseWaitsForTheListenersUntilTheDeadlineAtMost() {
        LeaseMachine machine = machine(false);
        long deadline = now + ttlValidity;
        leader(machine, null, 5);
        now += 1_000;
        CompletableFuture<Void> done = new CompletableFuture<>();

        LeaseMachine.Step stepDown = step(machine, new LeaseInput.StepDown(false, done));

        LeaseAction.ReleaseAfterListeners release = only(stepDown, LeaseAction.ReleaseAfterListeners.class);
        assertThat(release.term()).isEqualTo(5);
        assertThat(release.lost().reason()).isEqualTo(LossReason.RELEASED);
        assertThat(release.fallbackAt()).isEqualTo(deadline);
        // It stopped counting itself leader before the loss is told and the lease goes.
        assertThat(stepDown.actions().indexOf(only(stepDown, LeaseAction.Unlead.class)))
                .isLessThan(stepDown.actions().indexOf(release));
        assertThat(actions(stepDown, LeaseAction.Release.class)).isEmpty();

        // Holding off: a release notice now does not make it contend again.
        LeaseMachine.Step notice = step(machine, new LeaseInput.Notice(
                new LeaseNotice(LeaseNotice.Kind.RELEASED, "a", 5)));
        assertThat(actions(notice, LeaseAction.Acquire.class)).isEmpty();
    }

    @Test
    void aStepDownFromAListenerReleasesAtOnce() {
        LeaseMachine machine = machine(false);
        leader(machine, null, 5);
        CompletableFuture<Void> done = new CompletableFuture<>();

        LeaseMachine.Step stepDown = step(machine, new LeaseInput.StepDown(true, done));

        assertThat(actions(stepDown, LeaseAction.ReleaseAfterListeners.class)).isEmpty();
        assertThat(only(stepDown, LeaseAction.Release.class)).isEqualTo(new LeaseAction.Release(5, null, done));
    }

    @Test
    void aDeniedFollowerArmsForTheNextReleaseAndWaitsForTheExpiryItRead() {
        LeaseMachine machine = machine(false);
        LeaseAction.Acquire acquire = only(step(machine, new LeaseInput.Start()), LeaseAction.Acquire.class);
        Duration remaining = Duration.ofMillis(300);

        LeaseMachine.Step denied = step(machine, new LeaseInput.AcquireReplied(acquire.call(), now, null,
                new AcquireResult.Denied(new Lease("b", 9, remaining)), null));

        LeaseAction.Arm arm = only(denied, LeaseAction.Arm.class);
        assertThat(arm.shot().minTerm()).as("a release of an older term is stale").isEqualTo(9);
        assertThat(denied.wakeAt().orElseThrow()).isBetween(now + remaining.toNanos(),
                now + remaining.plus(config.expiryJitter()).toNanos());

        // The notice thread fired the armed acquire: its reply is the one the machine now waits for.
        step(machine, new LeaseInput.AcquireFired(new LeaseNotice(LeaseNotice.Kind.RELEASED, "b", 9),
                arm.shot().call()));
        LeaseMachine.Step granted = step(machine, new LeaseInput.AcquireReplied(arm.shot().call(), now, null,
                new AcquireResult.Granted(10), null));
        assertThat(only(granted, LeaseAction.Lead.class).term()).isEqualTo(10);
    }

    @Test
    void anAttemptThatFindsTheArmedAcquireFiredWaitsForThatOnesReply() {
        LeaseMachine machine = machine(false);
        LeaseAction.Acquire acquire = only(step(machine, new LeaseInput.Start()), LeaseAction.Acquire.class);
        LeaseMachine.Step waiting = step(machine, new LeaseInput.AcquireReplied(acquire.call(), now, null,
                new AcquireResult.Denied(new Lease("b", 9, Duration.ofMillis(1))), null));
        LeaseAction.Arm arm = only(waiting, LeaseAction.Arm.class);
        now = waiting.wakeAt().orElseThrow();
        LeaseAction.Acquire attempt = only(step(machine, new LeaseInput.Tick()), LeaseAction.Acquire.class);

        // The driver found the shot fired: this attempt was never sent, and the fired one decides.
        assertThat(step(machine, new LeaseInput.AcquireNotSent(attempt.call())).actions()).isEmpty();
        step(machine, new LeaseInput.AcquireFired(new LeaseNotice(LeaseNotice.Kind.RELEASED, "b", 9),
                arm.shot().call()));
        LeaseMachine.Step denied = step(machine, new LeaseInput.AcquireReplied(arm.shot().call(), now, null,
                new AcquireResult.Denied(new Lease("c", 10, Duration.ofSeconds(1))), null));

        assertThat(only(denied, LeaseAction.Acquire.class).call())
                .as("asked again, since an attempt was wanted while the fired one was out")
                .isNotIn(attempt.call(), arm.shot().call());
    }

    @Test
    void aLeaderBoundToASessionChecksANewerTermByReadingTheLease() {
        LeaseMachine machine = machine(true);
        SessionKeeper.Session session = new SessionKeeper.Session("s1", new LeaseDeadline(now + ttlValidity), 1);
        LeaseMachine.Step granted = leader(machine, session, 4);
        assertThat(only(granted, LeaseAction.Lead.class).deadline()).isSameAs(session.deadline());
        assertThat(granted.wakeAt()).as("no renewal or deadline of its own: the session keeper has them").isEmpty();

        LeaseAction.Read read = only(step(machine, new LeaseInput.Notice(
                new LeaseNotice(LeaseNotice.Kind.ACQUIRED, "b", 5))), LeaseAction.Read.class);
        LeaseMachine.Step taken = step(machine, new LeaseInput.ReadReplied(read.call(),
                Optional.of(new Lease("b", 5, Duration.ofSeconds(1), "s2")), null));

        assertThat(events(taken)).filteredOn(ElectionEvent.LeadershipLost.class::isInstance).singleElement()
                .extracting(e -> ((ElectionEvent.LeadershipLost) e).reason()).isEqualTo(LossReason.LEASE_TAKEN);
    }

    @Test
    void aLostSessionEndsTheLeadershipBoundToItAndContendingWaitsForTheNext() {
        LeaseMachine machine = machine(true);
        SessionKeeper.Session first = new SessionKeeper.Session("s1", new LeaseDeadline(now + ttlValidity), 1);
        leader(machine, first, 4);

        LeaseMachine.Step lost = step(machine, new LeaseInput.SessionLost(first, LossReason.EXPIRED_LOCALLY));
        assertThat(events(lost)).filteredOn(ElectionEvent.LeadershipLost.class::isInstance).hasSize(1);
        assertThat(actions(lost, LeaseAction.Acquire.class)).as("no session to bind a lease to").isEmpty();

        SessionKeeper.Session second = new SessionKeeper.Session("s2", new LeaseDeadline(now + ttlValidity), 2);
        LeaseMachine.Step opened = step(machine, new LeaseInput.SessionOpened(second));
        assertThat(only(opened, LeaseAction.Acquire.class).session()).isSameAs(second);
        assertThat(only(opened, LeaseAction.PublishState.class).state()).isEqualTo(NodeState.CANDIDATE);
    }

    @Test
    void aGrantBoundToASessionThatEndedMeanwhileIsHandedBack() {
        LeaseMachine machine = machine(true);
        SessionKeeper.Session first = new SessionKeeper.Session("s1", new LeaseDeadline(now + ttlValidity), 1);
        step(machine, new LeaseInput.SessionOpened(first));
        LeaseAction.Acquire acquire = only(step(machine, new LeaseInput.Start()), LeaseAction.Acquire.class);
        step(machine, new LeaseInput.SessionLost(first, LossReason.LEASE_TAKEN));
        SessionKeeper.Session second = new SessionKeeper.Session("s2", new LeaseDeadline(now + ttlValidity), 2);
        step(machine, new LeaseInput.SessionOpened(second));

        LeaseMachine.Step granted = step(machine, new LeaseInput.AcquireReplied(acquire.call(), now, first,
                new AcquireResult.Granted(6), null));

        assertThat(actions(granted, LeaseAction.Lead.class)).isEmpty();
        assertThat(actions(granted, LeaseAction.Release.class)).containsExactly(
                new LeaseAction.Release(6, first, null));
        assertThat(only(granted, LeaseAction.Acquire.class).session()).isSameAs(second);
    }

    @Test
    void closedItAsksForNothingMore() {
        LeaseMachine machine = machine(false);
        leader(machine, null, 2);
        LeaseMachine.Step closing = step(machine, new LeaseInput.Close(false, () -> { }));
        assertThat(only(closing, LeaseAction.ReleaseAfterListeners.class).term()).isEqualTo(2);
        assertThat(closing.wakeAt()).isEqualTo(OptionalLong.empty());

        now += config.leaseTtl().toNanos();
        assertThat(step(machine, new LeaseInput.Tick()).actions()).isEmpty();
        assertThat(step(machine, new LeaseInput.Notice(new LeaseNotice(LeaseNotice.Kind.RELEASED, "b", 3)))
                .actions()).isEmpty();
    }
}

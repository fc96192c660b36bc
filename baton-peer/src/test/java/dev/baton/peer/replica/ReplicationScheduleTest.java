package dev.baton.peer.replica;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.Leadership;
import dev.baton.core.store.FencedMapWrite;
import dev.baton.core.store.FencedValue;
import dev.baton.peer.sim.LinkConditions;
import dev.baton.peer.sim.NodeScheduler;
import dev.baton.peer.sim.SimulatedNetwork;
import dev.baton.peer.transport.PeerAddress;
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
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Random schedules on the simulated network (loss, duplication, reordering, partitions) with leadership passing
 * between three members, where a deposed leader keeps believing it leads for a while and keeps writing, and members
 * restart empty (their replicas live in memory): no acknowledged write is ever lost. Members restart one at a time,
 * as the store assumes: after a restart, the next one waits until the network has been whole, without loss, under a
 * new leader long enough for the restarted member to hold the state again. At the end the network heals and a last
 * leader catches up; for every key its value must come from the acknowledged write with the newest version, or from a
 * write issued after it whose outcome was unknown (it failed, or never completed). A failing schedule prints its
 * seed; {@code -Dreplica.seed=N} replays it, {@code -Dreplica.schedules=N} runs more.
 */
class ReplicationScheduleTest {

    static final String GROUP = "cameras";
    static final String MAP = "items";
    static final List<PeerAddress> MEMBERS = List.of(PeerAddress.of("n1", 7500), PeerAddress.of("n2", 7500),
            PeerAddress.of("n3", 7500));
    static final int KEYS = 4;

    /** One write the schedule issued: its version is (term, order of issue), as the leader numbers its writes. */
    record Issued(String key, String value, long term, int order, CompletableFuture<FencedMapWrite> result) {
        boolean acknowledged() {
            return result.isDone() && !result.isCompletedExceptionally() && result.join().accepted();
        }

        boolean unknown() {
            return !result.isDone() || result.isCompletedExceptionally();
        }

        boolean newerThan(Issued other) {
            return term != other.term ? term > other.term : order > other.order;
        }
    }

    @Test
    void noAcknowledgedWriteIsLost() {
        String replay = System.getProperty("replica.seed");
        if (replay != null) {
            runSchedule(Long.parseLong(replay));
            return;
        }
        int schedules = Integer.getInteger("replica.schedules", 150);
        long base = new Random().nextLong();
        for (int i = 0; i < schedules; i++) {
            runSchedule(base + i);
        }
    }

    private void runSchedule(long seed) {
        try {
            schedule(seed);
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError("schedule failed; replay with -Dreplica.seed=" + seed + ": " + e.getMessage(), e);
        }
    }

    private void schedule(long seed) {
        Random random = new Random(seed);
        FakeClock clock = new FakeClock();
        DeterministicScheduler scheduler = new DeterministicScheduler(clock);
        LinkConditions lossy = LinkConditions.delayed(Duration.ofMillis(1), Duration.ofMillis(30)).withLoss(0.05)
                .withDuplication(0.05);
        SimulatedNetwork<ReplicaMessage> network = SimulatedNetwork.<ReplicaMessage>builder(scheduler, clock,
                        new Random(random.nextLong()))
                .defaultLink(lossy)
                .codec(ReplicatedWorkStore.codec())
                .build();
        Map<PeerAddress, Leadership[]> believes = new HashMap<>();
        Map<PeerAddress, ReplicatedWorkStore> stores = new HashMap<>();
        Map<PeerAddress, NodeScheduler> processes = new HashMap<>();
        Function<PeerAddress, ReplicatedWorkStore> startStore = address -> {
            Leadership[] held = believes.computeIfAbsent(address, a -> new Leadership[1]);
            ReplicaGroup group = new ReplicaGroup() {
                @Override
                public Optional<Leadership> leadership() {
                    return Optional.ofNullable(held[0]);
                }

                @Override
                public CompletableFuture<Set<PeerAddress>> replicas() {
                    return CompletableFuture.completedFuture(Set.copyOf(MEMBERS));
                }

                @Override
                public int majority(int known) {
                    return 2;
                }
            };
            NodeScheduler process = new NodeScheduler(scheduler);
            processes.put(address, process);
            ReplicatedWorkStore store = ReplicatedWorkStore.builder(GROUP, group,
                            stores.containsKey(address) ? network.restart(address) : network.transport(address))
                    .scheduler(process).clock(clock).writeTimeout(Duration.ofSeconds(1)).build();
            store.start();
            stores.put(address, store);
            return store;
        };
        MEMBERS.forEach(startStore::apply);

        List<Issued> issued = new ArrayList<>();
        Map<PeerAddress, Integer> orderInTerm = new HashMap<>();
        long term = 0;
        boolean restartedMemberHoldsState = true;
        for (int step = 0; step < 120; step++) {
            int action = random.nextInt(100);
            if (action >= 95 && restartedMemberHoldsState) {
                // A member restarts empty; its election leads nothing until elected again.
                PeerAddress restarted = MEMBERS.get(random.nextInt(MEMBERS.size()));
                processes.get(restarted).crash();
                believes.get(restarted)[0] = null;
                startStore.apply(restarted);
                restartedMemberHoldsState = false;
            } else if (action >= 95) {
                // Before another restart: the network whole and without loss under a new leader, until the member
                // that restarted holds the state again.
                network.heal();
                network.setDefaultLink(LinkConditions.delayed(Duration.ofMillis(1), Duration.ofMillis(30)));
                PeerAddress next = MEMBERS.get(random.nextInt(MEMBERS.size()));
                long t = ++term;
                believes.get(next)[0] = leadership(next, t, clock);
                orderInTerm.put(next, 0);
                scheduler.advance(Duration.ofSeconds(2));
                network.setDefaultLink(lossy);
                restartedMemberHoldsState = true;
            } else if (action < 8) {
                // A new leader; the previous one may keep believing it leads (it has not noticed yet).
                PeerAddress next = MEMBERS.get(random.nextInt(MEMBERS.size()));
                long t = ++term;
                believes.get(next)[0] = leadership(next, t, clock);
                orderInTerm.put(next, 0);
                for (PeerAddress other : MEMBERS) {
                    if (!other.equals(next) && random.nextBoolean()) {
                        believes.get(other)[0] = null;
                    }
                }
            } else if (action < 14) {
                List<PeerAddress> shuffled = new ArrayList<>(MEMBERS);
                java.util.Collections.shuffle(shuffled, random);
                network.partition(Set.of(shuffled.get(0)), Set.of(shuffled.get(1), shuffled.get(2)));
            } else if (action < 22) {
                network.heal();
            } else if (action < 70) {
                PeerAddress writer = MEMBERS.get(random.nextInt(MEMBERS.size()));
                Leadership held = believes.get(writer)[0];
                if (held != null) {
                    String key = "camera-" + random.nextInt(KEYS);
                    boolean remove = random.nextInt(5) == 0;
                    String value = remove ? null : "v" + step;
                    int order = orderInTerm.merge(writer, 1, Integer::sum);
                    CompletableFuture<FencedMapWrite> result = remove
                            ? stores.get(writer).fencedRemove(GROUP, MAP, key, writer.format(), held.term())
                            : stores.get(writer).fencedPut(GROUP, MAP, key, writer.format(), held.term(),
                                    value.getBytes(StandardCharsets.UTF_8));
                    issued.add(new Issued(key, value, held.term(), order, result));
                }
            }
            scheduler.advance(Duration.ofMillis(random.nextInt(60)));
        }

        network.heal();
        scheduler.advance(Duration.ofSeconds(3)); // every write completes or times out
        PeerAddress last = MEMBERS.get(random.nextInt(MEMBERS.size()));
        MEMBERS.forEach(address -> believes.get(address)[0] = null);
        believes.get(last)[0] = leadership(last, ++term, clock);
        CompletableFuture<java.util.SortedMap<String, FencedValue>> finalState = stores.get(last)
                .mapEntries(GROUP, MAP);
        scheduler.advance(Duration.ofSeconds(2));
        assertThat(finalState).as("the last leader caught up").isCompleted();

        for (int k = 0; k < KEYS; k++) {
            String key = "camera-" + k;
            Issued newestAcked = null;
            for (Issued w : issued) {
                if (w.key().equals(key) && w.acknowledged() && (newestAcked == null || w.newerThan(newestAcked))) {
                    newestAcked = w;
                }
            }
            FencedValue value = finalState.join().get(key);
            String found = value == null ? null : new String(value.value(), StandardCharsets.UTF_8);
            List<String> allowed = new ArrayList<>();
            for (Issued w : issued) {
                if (w.key().equals(key) && (w == newestAcked || newestAcked == null && w.unknown()
                        || newestAcked != null && w.unknown() && w.newerThan(newestAcked))) {
                    allowed.add(w.value());
                }
            }
            if (newestAcked == null) {
                allowed.add(null); // nothing acknowledged: never written is a possible outcome
            }
            StringBuilder history = new StringBuilder();
            for (Issued w : issued) {
                if (w.key().equals(key)) {
                    history.append(String.format("%n  %s term %d #%d %s", w.value(), w.term(), w.order(),
                            w.acknowledged() ? "acknowledged" : w.unknown() ? "unknown" : "refused"));
                }
            }
            assertThat(allowed).as(key + " is " + found + "; allowed: the newest acknowledged write or a newer one"
                    + " whose outcome is unknown; its writes:" + history).contains(found);
        }
    }

    private static Leadership leadership(PeerAddress address, long term, FakeClock clock) {
        return new Leadership(GROUP, address.format(), term, clock.nanoTime() + Duration.ofHours(1).toNanos(), clock,
                t -> t == term);
    }
}

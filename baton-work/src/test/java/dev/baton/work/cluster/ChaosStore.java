package dev.baton.work.cluster;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.ClusterEvent;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.EventLogStore;
import dev.baton.core.store.FencedMapStore;
import dev.baton.core.store.FencedMapWrite;
import dev.baton.core.store.FencedStore;
import dev.baton.core.store.FencedValue;
import dev.baton.core.store.FencedWriteResult;
import dev.baton.core.store.LeaderRecord;
import dev.baton.core.store.LeaderRecordStore;
import dev.baton.core.store.LeaderRecordWrite;
import dev.baton.core.store.Lease;
import dev.baton.core.store.LeaseNotice;
import dev.baton.core.store.LeaseStore;
import dev.baton.core.store.MemberNotice;
import dev.baton.core.store.MessageBus;
import dev.baton.core.store.RegistryStore;
import dev.baton.core.store.Subscription;
import dev.baton.testkit.DeterministicScheduler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One simulated process's connection to the shared store, for {@link WorkClusterChaosTest}: it tells the test's
 * {@link Observer} about every lease granted and every fenced map write answered, as the store decided them; it makes
 * every call take time (it reaches the store after a random delay and its answer comes back after another, in the
 * order sent, as on one connection); and it puts the pub/sub messages this process receives through a faulty link:
 * each may be lost, delivered twice or late.
 *
 * <p>The link keeps each subscription's messages in order, as Redis pub/sub and PostgreSQL {@code NOTIFY} do (one
 * connection, one ordered stream): a late message holds back the ones behind it. Duplicates arrive right after the
 * original. Underneath is the process's {@code FaultInjectingStore}, which can cut it off.
 */
final class ChaosStore implements CoordinationStore {

    /** What the test watches: leases granted and fenced writes answered, as the store decided them. */
    interface Observer {
        void granted(String process, long term);

        void written(String process, String map, String key, long term, FencedMapWrite result);
    }

    /** The faults now; the test changes them between phases. */
    static final class Faults {
        /** Pub/sub: the chance that a message is lost, or delivered twice, and its largest delay. */
        double drop;
        double duplicate;
        long maxDelayNanos;
        /** Store calls: the largest delay on the way there, and again on the way back. */
        long maxLatencyNanos;

        void off() {
            drop = 0;
            duplicate = 0;
            maxDelayNanos = 0;
            maxLatencyNanos = 0;
        }
    }

    private final CoordinationStore delegate;
    private final String process;
    private final DeterministicScheduler network;
    private final Random random;
    private final Faults faults;
    private final Observer observer;
    private long lastArrival = Long.MIN_VALUE;
    private long lastAnswer = Long.MIN_VALUE;
    private final LeaseStore leasesRole = new LeasesRole();
    private final RegistryStore registryRole = new RegistryRole();
    private final FencedStore registersRole = new RegistersRole();
    private final FencedMapStore mapsRole = new MapsRole();
    private final EventLogStore eventsRole = new EventsRole();
    private final MessageBus busRole = new BusRole();
    private final LeaderRecordStore leaderRecordsRole = new LeaderRecordsRole();

    /**
     * @param process the process's name in the observer's reports (its id and incarnation)
     * @param network the shared scheduler, which carries what is in transit (it belongs to no process)
     */
    ChaosStore(CoordinationStore delegate, String process, DeterministicScheduler network, Random random,
            Faults faults, Observer observer) {
        this.delegate = delegate;
        this.process = process;
        this.network = network;
        this.random = random;
        this.faults = faults;
        this.observer = observer;
    }

    /** Runs a store call after the way there, and hands its answer back after the way back, in order. */
    private <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> operation) {
        if (faults.maxLatencyNanos <= 0 && lastArrival < network.clock().nanoTime()
                && lastAnswer < network.clock().nanoTime()) {
            return operation.get();
        }
        CompletableFuture<T> answer = new CompletableFuture<>();
        long now = network.clock().nanoTime();
        lastArrival = Math.max(now + latency(), lastArrival);
        network.schedule(Duration.ofNanos(lastArrival - now), () -> operation.get().whenComplete((value, error) -> {
            long at = network.clock().nanoTime();
            lastAnswer = Math.max(at + latency(), lastAnswer);
            network.schedule(Duration.ofNanos(lastAnswer - at), () -> {
                if (error != null) {
                    answer.completeExceptionally(error);
                } else {
                    answer.complete(value);
                }
            });
        }));
        return answer;
    }

    private long latency() {
        return faults.maxLatencyNanos <= 0 ? 0 : (long) (random.nextDouble() * faults.maxLatencyNanos);
    }

    /** One subscription's ordered, lossy, duplicating, slow link. */
    private final class Link implements Consumer<byte[]> {
        private final Consumer<byte[]> handler;
        private long lastDeliveryAt = Long.MIN_VALUE;

        Link(Consumer<byte[]> handler) {
            this.handler = handler;
        }

        @Override
        public void accept(byte[] message) {
            if (faults.drop > 0 && random.nextDouble() < faults.drop) {
                return;
            }
            int copies = faults.duplicate > 0 && random.nextDouble() < faults.duplicate ? 2 : 1;
            long now = network.clock().nanoTime();
            long delay = faults.maxDelayNanos <= 0 ? 0 : (long) (random.nextDouble() * faults.maxDelayNanos);
            long at = Math.max(now + delay, lastDeliveryAt);
            if (at == now && lastDeliveryAt < now) { // nothing held back: straight through, like the store
                for (int i = 0; i < copies; i++) {
                    handler.accept(message.clone());
                }
                return;
            }
            lastDeliveryAt = at;
            network.schedule(Duration.ofNanos(at - now), () -> {
                for (int i = 0; i < copies; i++) {
                    handler.accept(message.clone());
                }
            });
        }
    }

    // ---------------------------------------------------------------- the rest goes straight through

    @Override
    public LeaseStore leases() {
        return leasesRole;
    }

    @Override
    public RegistryStore registry() {
        return registryRole;
    }

    @Override
    public FencedStore registers() {
        return registersRole;
    }

    @Override
    public FencedMapStore maps() {
        return mapsRole;
    }

    @Override
    public EventLogStore events() {
        return eventsRole;
    }

    @Override
    public MessageBus bus() {
        return busRole;
    }

    @Override
    public LeaderRecordStore leaderRecords() {
        return leaderRecordsRole;
    }

    @Override
    public String describe() {
        return "chaos(" + delegate.describe() + ")";
    }

    @Override
    public void close() {
        delegate.close();
    }

    /** The leases role, each call delayed on the way there and back. */
    private final class LeasesRole implements LeaseStore {

        @Override
        public CompletableFuture<AcquireResult> acquire(String group, NodeInfo candidate, Duration ttl) {
            return call(() -> delegate.leases().acquire(group, candidate, ttl).whenComplete((result, error) -> {
                if (result instanceof AcquireResult.Granted granted) {
                    observer.granted(process, granted.term());
                }
            }));
        }

        @Override
        public CompletableFuture<Boolean> renew(String group, String nodeId, long term, Duration ttl) {
            return call(() -> delegate.leases().renew(group, nodeId, term, ttl));
        }

        @Override
        public CompletableFuture<Boolean> release(String group, String nodeId, long term) {
            return call(() -> delegate.leases().release(group, nodeId, term));
        }

        @Override
        public CompletableFuture<Optional<Lease>> read(String group) {
            return call(() -> delegate.leases().read(group));
        }

        @Override
        public Subscription watch(String group, Consumer<LeaseNotice> listener) {
            return delegate.leases().watch(group, listener);
        }
    }

    /** The registry role, each call delayed on the way there and back. */
    private final class RegistryRole implements RegistryStore {

        @Override
        public CompletableFuture<Void> register(String group, NodeInfo node, Duration ttl) {
            return call(() -> delegate.registry().register(group, node, ttl));
        }

        @Override
        public CompletableFuture<Boolean> heartbeat(String group, String nodeId, Duration ttl) {
            return call(() -> delegate.registry().heartbeat(group, nodeId, ttl));
        }

        @Override
        public CompletableFuture<Boolean> unregister(String group, String nodeId) {
            return call(() -> delegate.registry().unregister(group, nodeId));
        }

        @Override
        public CompletableFuture<List<NodeInfo>> members(String group) {
            return call(() -> delegate.registry().members(group));
        }

        @Override
        public CompletableFuture<Optional<NodeInfo>> member(String group, String nodeId) {
            return call(() -> delegate.registry().member(group, nodeId));
        }

        @Override
        public CompletableFuture<Optional<NodeInfo>> leaderInfo(String group) {
            return call(() -> delegate.registry().leaderInfo(group));
        }

        @Override
        public CompletableFuture<List<String>> sweepExpired(String group) {
            return call(() -> delegate.registry().sweepExpired(group));
        }

        @Override
        public Subscription watchMembers(String group, Consumer<MemberNotice> listener) {
            return delegate.registry().watchMembers(group, listener);
        }
    }

    /** The registers role, each call delayed on the way there and back. */
    private final class RegistersRole implements FencedStore {

        @Override
        public CompletableFuture<FencedWriteResult> fencedWrite(String group, String register, String nodeId, long term,
                byte[] value) {
            return call(() -> delegate.registers().fencedWrite(group, register, nodeId, term, value));
        }

        @Override
        public CompletableFuture<Optional<FencedValue>> fencedRead(String group, String register) {
            return call(() -> delegate.registers().fencedRead(group, register));
        }
    }

    /** The maps role, each call delayed on the way there and back. */
    private final class MapsRole implements FencedMapStore {

        @Override
        public CompletableFuture<FencedMapWrite> fencedPut(String group, String map, String key, String nodeId,
                long term,
                byte[] value) {
            return call(() -> delegate.maps().fencedPut(group, map, key, nodeId, term, value).whenComplete((result,
                    error) -> {
                if (result != null) {
                    observer.written(process, map, key, term, result);
                }
            }));
        }

        @Override
        public CompletableFuture<FencedMapWrite> fencedRemove(String group, String map, String key, String nodeId,
                long term) {
            return call(() -> delegate.maps().fencedRemove(group, map, key, nodeId, term).whenComplete((result,
                    error) -> {
                if (result != null) {
                    observer.written(process, map, key, term, result);
                }
            }));
        }

        @Override
        public CompletableFuture<Optional<FencedValue>> mapGet(String group, String map, String key) {
            return call(() -> delegate.maps().mapGet(group, map, key));
        }

        @Override
        public CompletableFuture<SortedMap<String, FencedValue>> mapEntries(String group, String map) {
            return call(() -> delegate.maps().mapEntries(group, map));
        }
    }

    /** The events role, each call delayed on the way there and back. */
    private final class EventsRole implements EventLogStore {

        @Override
        public CompletableFuture<Void> appendEvent(String group, String nodeId, String type, Map<String, String> data) {
            return call(() -> delegate.events().appendEvent(group, nodeId, type, data));
        }

        @Override
        public CompletableFuture<List<ClusterEvent>> recentEvents(String group, int limit) {
            return call(() -> delegate.events().recentEvents(group, limit));
        }
    }

    /** The bus role: publishes delayed like calls, received messages through a faulty {@link Link}. */
    private final class BusRole implements MessageBus {

        @Override
        public CompletableFuture<Long> publish(String channel, byte[] message) {
            return call(() -> delegate.bus().publish(channel, message));
        }

        @Override
        public Subscription subscribe(String channel, Consumer<byte[]> handler) {
            return delegate.bus().subscribe(channel, new Link(handler));
        }
    }

    /** The leaderRecords role, each call delayed on the way there and back. */
    private final class LeaderRecordsRole implements LeaderRecordStore {

        @Override
        public CompletableFuture<Optional<LeaderRecord>> readLeader(String group) {
            return call(() -> delegate.leaderRecords().readLeader(group));
        }

        @Override
        public CompletableFuture<LeaderRecordWrite> writeLeader(LeaderRecord record) {
            return call(() -> delegate.leaderRecords().writeLeader(record));
        }

        @Override
        public String describe() {
            return ChaosStore.this.describe();
        }

        @Override
        public void close() {
            ChaosStore.this.close();
        }
    }
}

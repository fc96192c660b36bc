package dev.baton.work.cluster;

import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.Leadership;
import dev.baton.core.NodeInfo;
import dev.baton.core.memory.InMemoryStore;
import dev.baton.core.store.FencedMapWrite;
import dev.baton.core.store.Lease;
import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import dev.baton.testkit.FaultInjectingStore;
import dev.baton.work.WorkCluster;
import dev.baton.work.WorkClusterConfig;
import dev.baton.work.WorkItem;
import dev.baton.work.internal.worker.WorkerCommand;
import dev.baton.work.internal.worker.WorkerProtocolCodec;
import dev.baton.work.internal.worker.WorkerProtocolException;
import dev.baton.work.worker.WorkerTransport;
import java.io.IOException;
import java.net.URI;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The fault-injecting harness of {@link WorkClusterChaosTest}: processes running work clusters on one in-memory store
 * and in-memory workers ({@link FakeWorkers}), all on one deterministic scheduler and fake clock, each process with
 * its own {@link ProcessScheduler} (so it can crash or pause), its own store connection (a {@link FaultInjectingStore}
 * that can be cut off, under a {@link ChaosStore} whose pub/sub link loses, duplicates and delays messages) and its own
 * view of the workers (so a crash drops its sockets).
 *
 * <p>Every process reads the same desired state source ({@link #database}, which can be down) and signs model URLs
 * with the same assignment hook (which can fail).
 *
 * <p>While it runs, the harness checks the safety properties as they happen and collects every breach in
 * {@link #violations}:
 * <ul>
 *   <li><b>fencing</b>: the store accepts a fenced write only under the newest term it granted, and only from the
 *       process it granted that term to;</li>
 *   <li><b>one leader per term</b>: no two processes (incarnations) write under the same term;</li>
 *   <li><b>commands only from the leader</b>: a {@code subscribe} or {@code unsubscribe} reaches a worker's socket
 *       only from a process whose work cluster is leading, whose election leadership is the store's live lease,
 *       at the moment it is sent.</li>
 * </ul>
 */
final class ChaosCluster implements ChaosStore.Observer {

    static final String GROUP = "cameras";

    final FakeClock clock = new FakeClock();
    final DeterministicScheduler scheduler = new DeterministicScheduler(clock);
    final InMemoryStore store = new InMemoryStore(clock);
    final FakeWorkers workers = new FakeWorkers(scheduler);
    final List<String> workerUrls = new ArrayList<>();
    final ChaosStore.Faults links = new ChaosStore.Faults();
    final WorkClusterConfig config = WorkClusterConfig.fast();
    final List<String> violations = new ArrayList<>();
    /** The desired state source every process reads (the seed's database), and whether it is down. */
    final Map<String, WorkItem> database = new TreeMap<>();
    boolean databaseDown;
    /** Whether the assignment hook (the seed's model URL signer) fails. */
    boolean hookFails;
    /** Every incarnation ever started, in order. */
    final List<Process> processes = new ArrayList<>();
    /** Where the harness reports what the store decided about leases, for a failing schedule's trace. */
    Consumer<String> tracer = line -> { };
    long acceptedWrites;
    long refusedWrites;
    long commandsSent;
    long leaderships;

    private final Random linkRandom;
    private final Random seeds;
    private final WorkerProtocolCodec codec = new WorkerProtocolCodec();
    private final Map<Long, String> grantedTo = new HashMap<>();
    private final Map<Long, String> writerOf = new HashMap<>();
    private long newestGranted;
    private final Map<String, Integer> incarnations = new HashMap<>();

    ChaosCluster(long seed, int workerCount) {
        this.linkRandom = new Random(seed ^ 0x5DEECE66DL);
        this.seeds = new Random(seed * 31 + 7);
        for (int i = 1; i <= workerCount; i++) {
            String url = "ws://worker-" + i + ":8000";
            workerUrls.add(url);
            workers.add(url);
        }
    }

    /** One incarnation of a process: its election, its work cluster and its faults. */
    final class Process {
        final String id;
        final String name;
        final ProcessScheduler scheduler;
        final FaultInjectingStore faults;
        final ChaosStore store;
        final Election election;
        final WorkCluster cluster;
        final ProcessTransport transport;
        boolean left;
        boolean partitioned;

        Process(String id, String name) {
            this.id = id;
            this.name = name;
            this.scheduler = new ProcessScheduler(ChaosCluster.this.scheduler);
            this.faults = new FaultInjectingStore(ChaosCluster.this.store);
            this.store = new ChaosStore(faults, name, ChaosCluster.this.scheduler, linkRandom, links, ChaosCluster.this);
            this.election = Baton.election(store).group(GROUP).node(NodeInfo.of(id, "work"))
                    .config(ElectionConfig.fast()).clock(clock).scheduler(scheduler).eventExecutor(Runnable::run)
                    .random(new Random(seeds.nextLong())).recordEvents(false).build();
            this.transport = new ProcessTransport(this);
            this.cluster = WorkCluster.builder(election, store).workers(workerUrls).config(config).clock(clock)
                    .scheduler(scheduler).random(new Random(seeds.nextLong())).transport(transport)
                    .source(ChaosCluster.this::loadDatabase).assignmentHook(ChaosCluster.this::signModelUrl)
                    .sourceExecutor(Runnable::run).listenerExecutor(Runnable::run).build();
        }

        /** Neither crashed nor closed. */
        boolean alive() {
            return !scheduler.crashed() && !left;
        }

        /** Alive, leading the work cluster. */
        boolean leading() {
            return alive() && cluster.isLeading();
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private List<WorkItem> loadDatabase() throws SQLException {
        if (databaseDown) {
            throw new SQLException("connection refused");
        }
        return List.copyOf(database.values());
    }

    private WorkItem signModelUrl(WorkItem item, String workerUrl) throws IOException {
        if (hookFails) {
            throw new IOException("the model store does not answer");
        }
        return item.withModelUrl("https://models.example/" + item.modelId() + "?for=" + workerUrl);
    }

    /**
     * Starts a new incarnation of process {@code id}. One that shut down but is still finishing (it may be frozen
     * half-way) is made to exit first: node ids are unique among running processes (the lease store tells holders
     * apart by id), so a supervisor starts a process again only once the old one is gone.
     */
    Process start(String id) {
        for (Process old : processes) {
            if (old.id.equals(id) && !old.scheduler.crashed()) {
                crash(old);
            }
        }
        int n = incarnations.merge(id, 1, Integer::sum);
        Process p = new Process(id, id + "#" + n);
        processes.add(p);
        p.cluster.start();
        p.election.start();
        return p;
    }

    /** The incarnations still running. */
    List<Process> alive() {
        return processes.stream().filter(Process::alive).toList();
    }

    /** The running incarnation of {@code id}, if any. */
    Optional<Process> alive(String id) {
        return processes.stream().filter(p -> p.alive() && p.id.equals(id)).findFirst();
    }

    /** The process leading the work cluster now, if exactly one does. */
    Optional<Process> leader() {
        List<Process> leading = processes.stream().filter(Process::leading).toList();
        return leading.size() == 1 ? Optional.of(leading.get(0)) : Optional.empty();
    }

    /** The process dies: it runs nothing more, its store connection and its worker sockets are gone. */
    void crash(Process p) {
        p.scheduler.crash();
        p.faults.replayOnHeal(false);
        p.faults.hang();
        p.transport.dropAll();
    }

    /** The process shuts down gracefully: its work cluster closes and its election is released. */
    void leave(Process p) {
        p.left = true;
        p.cluster.close();
        p.election.closeAsync();
    }

    /** Cuts the process off the store (its calls wait and reach the store late, on {@link #heal}). */
    void partition(Process p) {
        p.partitioned = true;
        p.faults.hang();
    }

    void heal(Process p) {
        p.partitioned = false;
        p.faults.heal();
    }

    void advance(Duration d) {
        scheduler.advance(d);
    }

    /** Checks the properties that hold at any instant; breaches go to {@link #violations}. */
    void checkInstant() {
        List<Process> validLeaders = new ArrayList<>();
        Map<Long, Process> byTerm = new HashMap<>();
        for (Process p : processes) {
            if (!p.leading()) {
                continue;
            }
            Optional<Leadership> l = p.election.leadership();
            if (l.isEmpty()) {
                continue;
            }
            Process other = byTerm.put(l.get().term(), p);
            if (other != null) {
                violations.add(at() + other + " and " + p + " both act as work leader in term " + l.get().term());
            }
            if (l.get().isValid() && !p.scheduler.paused()) {
                validLeaders.add(p);
            }
        }
        if (validLeaders.size() > 1) {
            violations.add(at() + "two valid work leaders at once: " + validLeaders);
        }
    }

    String at() {
        return String.format("t=%.3f ", clock.elapsed().toNanos() / 1e9);
    }

    // ---------------------------------------------------------------- what the store decided

    @Override
    public void granted(String process, long term) {
        leaderships++;
        tracer.accept("store: term " + term + " granted to " + process);
        grantedTo.put(term, process);
        newestGranted = Math.max(newestGranted, term);
    }

    @Override
    public void written(String process, String map, String key, long term, FencedMapWrite result) {
        String writer = writerOf.putIfAbsent(term, process);
        if (writer != null && !writer.equals(process)) {
            violations.add(at() + writer + " and " + process + " both wrote as work leader under term " + term);
        }
        if (!result.accepted()) {
            refusedWrites++;
            return;
        }
        acceptedWrites++;
        if (term != newestGranted) {
            violations.add(at() + "the store accepted " + process + "'s write of " + map + "/" + key + " under term "
                    + term + " although term " + newestGranted + " was granted");
        }
        if (!process.equals(grantedTo.get(term))) {
            violations.add(at() + "the store accepted " + process + "'s write of " + map + "/" + key + " under term "
                    + term + ", which was granted to " + grantedTo.get(term));
        }
    }

    /** A worker command leaves process {@code p} for worker {@code url}: it must come from the current leader. */
    private void sent(Process p, String url, String text) {
        WorkerCommand command;
        try {
            command = codec.decodeCommand(text);
        } catch (WorkerProtocolException e) {
            violations.add(at() + p + " sent an invalid command to " + url + ": " + text);
            return;
        }
        if (!(command instanceof WorkerCommand.Subscribe || command instanceof WorkerCommand.Unsubscribe)) {
            return;
        }
        commandsSent++;
        String what = command.type() + " " + (command instanceof WorkerCommand.Subscribe s
                ? s.subscriptionIdentifier() : ((WorkerCommand.Unsubscribe) command).subscriptionIdentifier());
        if (!p.cluster.isLeading()) {
            violations.add(at() + p + " sent '" + what + "' to " + url + " while its work cluster does not lead");
            return;
        }
        Optional<Lease> lease = store.leases().read(GROUP).join();
        Optional<Leadership> mine = p.election.leadership();
        if (lease.isEmpty() || mine.isEmpty() || !lease.get().owner().equals(p.id)
                || lease.get().term() != mine.get().term()) {
            violations.add(at() + p + " sent '" + what + "' to " + url + " as leader of term "
                    + mine.map(l -> Long.toString(l.term())).orElse("none") + " while the store's lease is "
                    + lease.map(l -> l.owner() + " term " + l.term()).orElse("free"));
        }
    }

    /** A process's way to the workers: the shared {@link FakeWorkers}, with every command checked. */
    private final class ProcessTransport implements WorkerTransport {
        private final Process process;
        private final List<Socket> open = new ArrayList<>();

        ProcessTransport(Process process) {
            this.process = process;
        }

        @Override
        public CompletableFuture<Socket> open(URI uri, Duration timeout, Handler handler) {
            return workers.open(uri, timeout, handler).thenApply(socket -> {
                Socket checked = new Socket() {
                    @Override
                    public void send(String text) {
                        sent(process, uri.toString(), text);
                        socket.send(text);
                    }

                    @Override
                    public void request(long n) {
                        socket.request(n);
                    }

                    @Override
                    public void close() {
                        open.remove(this);
                        socket.close();
                    }

                    @Override
                    public void abort() {
                        open.remove(this);
                        socket.abort();
                    }
                };
                open.add(checked);
                return checked;
            });
        }

        /** The process died: the workers see its connections drop. */
        void dropAll() {
            for (Socket s : List.copyOf(open)) {
                s.close();
            }
        }
    }
}

package dev.baton.bench.backend;

import dev.baton.bench.stats.MarkdownTable;
import dev.baton.bench.stats.Summary;
import dev.baton.core.store.CoordinationStore;
import dev.baton.testkit.EtcdCluster;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Watch;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A private three-member etcd cluster (the testkit's {@link EtcdCluster}: loopback ports, etcd's default raft timing)
 * with a plain jetcd client for calibration, and each member's {@code /metrics} read over HTTP from the outside.
 */
public final class EtcdBackend implements BenchBackend {

    private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(5);
    private static final Pattern SERVER_VERSION = Pattern.compile("\"etcdserver\"\\s*:\\s*\"([^\"]+)\"");
    private static final ByteSequence CALIBRATION_KEY = ByteSequence.from("bench-calibration", StandardCharsets.UTF_8);

    private static final StorePath PATH = new StorePath(
            "delete of the lease key in an etcd transaction, the delete event read by the winner's watch",
            "etcd transaction that creates the lease key if it does not exist; reply on a jetcd thread",
            "hop to the election's queue; lease watch opened on the store's watch stream, then store.acquire()",
            "etcd transaction that creates the lease key (the register write follows it); reply on a jetcd thread");

    private final EtcdCluster cluster;
    private final Client admin;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(HTTP_TIMEOUT).build();

    private EtcdBackend(EtcdCluster cluster, Client admin) {
        this.cluster = cluster;
        this.admin = admin;
    }

    static EtcdBackend start() {
        EtcdCluster cluster = EtcdCluster.start();
        try {
            return new EtcdBackend(cluster, Client.builder().endpoints(cluster.clientEndpoints()
                    .toArray(String[]::new)).build());
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    @Override
    public BackendKind kind() {
        return BackendKind.ETCD;
    }

    /** {@code etcd://127.0.0.1:p0,127.0.0.1:p1,127.0.0.1:p2}: every member. */
    @Override
    public String uri() {
        return "etcd://" + cluster.clientEndpoints().stream().map(e -> e.substring(e.indexOf("//") + 2))
                .collect(Collectors.joining(","));
    }

    @Override
    public CoordinationStore connect() {
        return BenchBackend.connect(uri());
    }

    @Override
    public String describe() {
        try {
            for (int i = 0; i < 200; i++) {
                roundTrip();
            }
            long[] samples = new long[2_000];
            for (int i = 0; i < samples.length; i++) {
                long start = System.nanoTime();
                roundTrip();
                samples[i] = System.nanoTime() - start;
            }
            Summary summary = Summary.of(samples);
            return "Private etcd " + version() + ", three members on loopback (the testkit's EtcdCluster: heartbeat"
                    + " 100 ms, election timeout 1 s, WAL fsync as etcd does by default); jetcd linearizable get"
                    + " round trip p50 " + MarkdownTable.millis(summary.p50()) + " ms, p99 "
                    + MarkdownTable.millis(summary.p99()) + " ms.";
        } catch (Exception e) {
            throw new IllegalStateException("could not talk to the private etcd", e);
        }
    }

    private String version() throws Exception {
        Matcher m = SERVER_VERSION.matcher(get(cluster.clientEndpoint(0) + "/version"));
        return m.find() ? m.group(1) : "(unknown version)";
    }

    @Override
    public String roundTripName() {
        return "get";
    }

    @Override
    public String roundTripClient() {
        return "jetcd, linearizable";
    }

    @Override
    public void roundTrip() throws Exception {
        admin.getKVClient().get(CALIBRATION_KEY).get(5, TimeUnit.SECONDS);
    }

    /**
     * The gRPC requests every member has received so far: unary calls, and each message a client sent on a stream
     * (a lease keep-alive, a watch request), summed over {@code grpc_server_msg_received_total} of each member's
     * {@code /metrics}. The HTTP reads of {@code /metrics} are not gRPC and are not counted.
     */
    public long grpcRequests() throws Exception {
        long sum = 0;
        for (String endpoint : cluster.clientEndpoints()) {
            sum += PrometheusSamples.sum(get(endpoint + "/metrics"), "grpc_server_msg_received_total");
        }
        return sum;
    }

    private String get(String url) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(HTTP_TIMEOUT)
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("GET " + url + " answered " + response.statusCode());
        }
        return response.body();
    }

    @Override
    public PushProbe openPushProbe() {
        BlockingQueue<Long> received = new LinkedBlockingQueue<>();
        Watch.Watcher watcher = admin.getWatchClient().watch(CALIBRATION_KEY, response -> {
            for (int i = 0; i < response.getEvents().size(); i++) {
                received.add(System.nanoTime());
            }
        });
        return new PushProbe() {
            @Override
            public String name() {
                return "put -> watch event";
            }

            @Override
            public long sendAndAwait() throws Exception {
                long sent = System.nanoTime();
                admin.getKVClient().put(CALIBRATION_KEY, ByteSequence.from("x", StandardCharsets.UTF_8));
                Long at = received.poll(5, TimeUnit.SECONDS);
                if (at == null) {
                    throw new IllegalStateException("no watch event within 5 s");
                }
                return at - sent;
            }

            @Override
            public void close() {
                watcher.close();
            }
        };
    }

    @Override
    public StorePath path() {
        return PATH;
    }

    @Override
    public void close() {
        try {
            admin.close();
        } finally {
            cluster.close();
        }
    }
}

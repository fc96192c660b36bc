package dev.baton.bench.scale;

import dev.baton.etcd.EtcdStoreOptions;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.election.CampaignResponse;
import io.etcd.jetcd.election.LeaderKey;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * etcd's own elections (its {@code v3election} service) through jetcd, the way Go's {@code concurrency.Session} and
 * {@code concurrency.Election} use them: one etcd lease per process, granted when the client is created and kept alive
 * by jetcd's keep-alive stream, and per group {@code campaign(name, lease, proposal)}, whose future completes when the
 * process leads (etcd holds the call until then). A led group is given up with {@code resign(leaderKey)}, a group
 * still campaigning by deleting its proposal key (as Go's {@code Campaign} does when its context ends); the lease is
 * revoked when the client closes.
 */
final class JetcdElections implements GroupClient {

    /** Baton's default lease TTL, so both wait out the same time after a crash. */
    private static final Duration LEASE_TTL = Duration.ofSeconds(30);
    private static final long CALL_TIMEOUT_SECONDS = 10;

    private final Client client;
    private final long leaseId;
    private final CloseableClient keepAlive;

    JetcdElections(String uri) {
        List<String> endpoints = EtcdStoreOptions.builder().uri(uri).build().endpoints();
        this.client = Client.builder().endpoints(endpoints.toArray(String[]::new)).build();
        try {
            this.leaseId = client.getLeaseClient().grant(LEASE_TTL.toSeconds())
                    .get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS).getID();
        } catch (Exception e) {
            client.close();
            throw new IllegalStateException("could not grant an etcd lease: " + e.getMessage(), e);
        }
        this.keepAlive = client.getLeaseClient().keepAlive(leaseId, new StreamObserver<>() {
            @Override
            public void onNext(LeaseKeepAliveResponse response) {
            }

            @Override
            public void onError(Throwable error) {
                System.err.println("scale: the etcd lease's keep-alive failed: " + error);
            }

            @Override
            public void onCompleted() {
            }
        });
    }

    @Override
    public GroupSet open(String prefix, int n, String node) {
        return new Campaigns(client, leaseId, prefix, n, bytes(node), new ArrayList<>(n), new ArrayList<>(n),
                new AtomicInteger());
    }

    @Override
    public String timings() {
        return "one etcd lease per process: TTL " + LEASE_TTL.toSeconds() + " s, kept alive every "
                + renewInterval().toSeconds() + " s by jetcd's keep-alive stream";
    }

    @Override
    public Duration leaseTtl() {
        return LEASE_TTL;
    }

    /** jetcd sends a lease's next keep-alive a third of its TTL after the last reply. */
    @Override
    public Duration renewInterval() {
        return LEASE_TTL.dividedBy(3);
    }

    @Override
    public void close() {
        keepAlive.close();
        try {
            client.getLeaseClient().revoke(leaseId).get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            System.err.println("scale: could not revoke the etcd lease (it expires in " + LEASE_TTL.toSeconds()
                    + " s): " + e);
        } finally {
            client.close();
        }
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    /**
     * The groups of one {@link #open}: per group its election name and its campaign, which completes with the leader
     * key once this process leads.
     */
    private record Campaigns(Client client, long leaseId, String prefix, int n, ByteSequence proposal,
            List<String> names, List<CompletableFuture<LeaderKey>> campaigns, AtomicInteger failed)
            implements GroupSet {

        @Override
        public List<CompletableFuture<Long>> start() {
            return GroupSet.startEach(prefix, n, group -> {
                CompletableFuture<LeaderKey> campaign = client.getElectionClient()
                        .campaign(bytes(group), leaseId, proposal).thenApply(CampaignResponse::getLeader);
                campaign.whenComplete((led, error) -> {
                    if (error != null && failed.getAndIncrement() == 0) {
                        // A failed campaign is a group this process no longer contends for: say why, once per set.
                        System.err.println("scale: a campaign failed (" + group + "): " + error);
                    }
                });
                names.add(group);
                campaigns.add(campaign);
                return campaign.thenApply(led -> System.nanoTime());
            });
        }

        /** Polls each group's proposal key (written before the campaign waits) until it exists, 30 s at most. */
        @Override
        public CompletableFuture<Void> contending() {
            return CompletableFuture.runAsync(() -> {
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                for (String name : names) {
                    while (client.getKVClient().get(proposalKey(name)).join().getCount() < 1) {
                        if (System.nanoTime() - deadline > 0) {
                            throw new IllegalStateException("no proposal of this process in election " + name);
                        }
                        LockSupport.parkNanos(1_000_000);
                    }
                }
            });
        }

        @Override
        public CompletableFuture<Void> closeAll() {
            if (failed.get() > 0) {
                System.err.println("scale: " + failed.get() + " of " + names.size() + " campaigns failed");
            }
            List<CompletableFuture<?>> done = new ArrayList<>(names.size());
            for (int i = 0; i < names.size(); i++) {
                CompletableFuture<LeaderKey> campaign = campaigns.get(i);
                if (campaign.isDone() && !campaign.isCompletedExceptionally()) {
                    done.add(client.getElectionClient().resign(campaign.join()));
                } else {
                    done.add(client.getKVClient().delete(proposalKey(names.get(i))));
                }
            }
            return CompletableFuture.allOf(done.toArray(CompletableFuture[]::new));
        }

        /** Counts the elections that still have a key of any process under their name. */
        @Override
        public int stillHeld() throws Exception {
            int held = 0;
            for (String name : names) {
                if (client.getKVClient().get(bytes(name + "/"), GetOption.builder().isPrefix(true)
                        .withCountOnly(true).build()).get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS).getCount() > 0) {
                    held++;
                }
            }
            return held;
        }

        /** The key etcd's election service writes for this lease's proposal: {@code <name>/<lease id in hex>}. */
        private ByteSequence proposalKey(String name) {
            return bytes(name + "/" + Long.toHexString(leaseId));
        }
    }
}

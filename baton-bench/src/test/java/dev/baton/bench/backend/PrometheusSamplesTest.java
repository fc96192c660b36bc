package dev.baton.bench.backend;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The etcd work counter adds up one metric's samples across their labels, and nothing else. */
class PrometheusSamplesTest {

    private static final String METRICS = """
            # HELP grpc_server_msg_received_total Total number of RPC stream messages received on the server.
            # TYPE grpc_server_msg_received_total counter
            grpc_server_msg_received_total{grpc_method="Put",grpc_service="etcdserverpb.KV",grpc_type="unary"} 7
            grpc_server_msg_received_total{grpc_method="LeaseKeepAlive",grpc_service="etcdserverpb.Lease",\
            grpc_type="bidi_stream"} 1.234e+06
            grpc_server_msg_received_total_extra{grpc_method="Put"} 1000
            grpc_server_msg_sent_total{grpc_method="Put",grpc_service="etcdserverpb.KV",grpc_type="unary"} 9
            """;

    @Test
    void sumsEverySampleOfTheMetricWhateverItsLabels() {
        assertThat(PrometheusSamples.sum(METRICS, "grpc_server_msg_received_total")).isEqualTo(1_234_007);
    }

    @Test
    void aMetricWithoutSamplesSumsToZero() {
        assertThat(PrometheusSamples.sum(METRICS, "grpc_server_handled_total")).isZero();
    }

    @Test
    void readsASampleWithoutLabels() {
        assertThat(PrometheusSamples.sum("process_open_fds 12\n", "process_open_fds")).isEqualTo(12);
    }
}

package dev.baton.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code etcd://} URIs and the builder accept, and the one-line errors for what they refuse. */
class EtcdStoreOptionsTest {

    @Test
    void aUriNamesEveryMemberAndOptionallyTheKeyPrefix() {
        EtcdStoreOptions options = EtcdStoreOptions.builder().uri("etcd://10.0.0.1:2379,h2:2380,[::1]:2381").build();

        assertThat(options.endpoints()).containsExactly("http://10.0.0.1:2379", "http://h2:2380",
                "http://[::1]:2381");
        assertThat(options.keyPrefix()).isEqualTo("baton/");
        assertThat(options.describe()).isEqualTo("etcd://10.0.0.1:2379,h2:2380,[::1]:2381/baton");
        assertThat(EtcdStoreOptions.builder().uri("etcd://h:1/orders").build().keyPrefix()).isEqualTo("orders/");
    }

    @Test
    void defaultsAndVariations() {
        EtcdStoreOptions options = EtcdStoreOptions.builder().uri("etcd://h:1").build();

        assertThat(options.callTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(options.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(options.eventRetention()).isEqualTo(10_000);
        EtcdStoreOptions varied = options.toBuilder().callTimeout(Duration.ofMillis(500)).keyPrefix("x").build();
        assertThat(varied.callTimeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(varied.keyPrefix()).isEqualTo("x/");
        assertThat(varied.endpoints()).isEqualTo(List.of("http://h:1"));
        assertThat(options.sessions()).as("sessions are off unless asked for").isFalse();
        assertThat(options.toBuilder().sessions(true).build().toBuilder().build().sessions()).isTrue();
    }

    @Test
    void badInputIsNamed() {
        assertThatThrownBy(() -> EtcdStoreOptions.builder().uri("http://h:1")).hasMessageStartingWith(
                "an etcd URI starts with etcd://");
        assertThatThrownBy(() -> EtcdStoreOptions.builder().uri("etcd://h")).hasMessageContaining("'h'");
        assertThatThrownBy(() -> EtcdStoreOptions.builder().uri("etcd://h:1,,h:2")).hasMessageStartingWith(
                "empty host");
        assertThatThrownBy(() -> EtcdStoreOptions.builder().build()).hasMessageStartingWith("uri must be set");
        assertThatThrownBy(() -> EtcdStoreOptions.builder().uri("etcd://h:1").callTimeout(Duration.ZERO).build())
                .hasMessageStartingWith("callTimeout must be positive");
        assertThatThrownBy(() -> EtcdStoreOptions.builder().uri("etcd://h:1").eventRetention(10).build())
                .hasMessageStartingWith("eventRetention must be at least 1000");
        assertThatThrownBy(() -> EtcdStoreOptions.builder().keyPrefix(" ")).hasMessage(
                "keyPrefix must not be blank");
    }
}

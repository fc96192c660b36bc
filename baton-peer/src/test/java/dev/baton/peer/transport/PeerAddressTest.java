package dev.baton.peer.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class PeerAddressTest {

    @Test
    void parsesAndFormatsHostAndPort() {
        PeerAddress address = PeerAddress.parse("10.0.0.5:7400");
        assertThat(address).isEqualTo(new PeerAddress("10.0.0.5", 7400));
        assertThat(address.format()).isEqualTo("10.0.0.5:7400");
        assertThat(address).hasToString("10.0.0.5:7400");
    }

    @Test
    void ipv6HostsGoInBrackets() {
        PeerAddress address = PeerAddress.parse("[::1]:7400");
        assertThat(address.host()).isEqualTo("::1");
        assertThat(address.port()).isEqualTo(7400);
        assertThat(address.format()).isEqualTo("[::1]:7400");
    }

    @Test
    void hostNamesAreLowerCased() {
        assertThat(PeerAddress.parse("Node-A.Example:1")).isEqualTo(PeerAddress.of("node-a.example", 1));
    }

    @Test
    void badAddressesAreRefusedWithAReason() {
        assertThatThrownBy(() -> PeerAddress.parse("")).hasMessageContaining("HOST:PORT");
        assertThatThrownBy(() -> PeerAddress.parse("host")).hasMessageContaining("has no port");
        assertThatThrownBy(() -> PeerAddress.parse(":7400")).hasMessageContaining("empty host");
        assertThatThrownBy(() -> PeerAddress.parse("host:http")).hasMessageContaining("not a number: 'http'");
        assertThatThrownBy(() -> PeerAddress.parse("host:0")).hasMessageContaining("outside 1..65535");
        assertThatThrownBy(() -> PeerAddress.parse("host:70000")).hasMessageContaining("outside 1..65535");
        assertThatThrownBy(() -> PeerAddress.parse("::1:7400")).hasMessageContaining("put the host in brackets");
        assertThatThrownBy(() -> PeerAddress.parse("[::1:7400")).hasMessageContaining("never closes");
        assertThatThrownBy(() -> PeerAddress.parse("[::1]7400")).hasMessageContaining("has no port");
        assertThatThrownBy(() -> PeerAddress.parse("[]:7400")).hasMessageContaining("empty host");
        assertThatThrownBy(() -> new PeerAddress("a b", 1)).hasMessageContaining("invalid character");
        assertThatThrownBy(() -> new PeerAddress("[::1]", 1)).hasMessageContaining("without brackets");
    }

    @Test
    void ordersByHostStringFirstThenByPort() {
        List<PeerAddress> addresses = new ArrayList<>(List.of(
                PeerAddress.parse("b:1"), PeerAddress.parse("a:9000"), PeerAddress.parse("a:10"),
                PeerAddress.parse("a:9"), PeerAddress.parse("10.0.0.2:1"), PeerAddress.parse("10.0.0.10:1")));
        Collections.sort(addresses);
        // Host strings compare as strings ("10.0.0.10" < "10.0.0.2"), ports as numbers (9 < 10 < 9000).
        assertThat(addresses).extracting(PeerAddress::format).containsExactly(
                "10.0.0.10:1", "10.0.0.2:1", "a:9", "a:10", "a:9000", "b:1");
    }

    @Property(tries = 200)
    void formatThenParseGivesTheSameAddress(@ForAll("addresses") PeerAddress address) {
        assertThat(PeerAddress.parse(address.format())).isEqualTo(address);
    }

    @Property(tries = 200)
    void orderIsConsistentWithEquals(@ForAll("addresses") PeerAddress a, @ForAll("addresses") PeerAddress b) {
        assertThat(Integer.signum(a.compareTo(b))).isEqualTo(-Integer.signum(b.compareTo(a)));
        assertThat(a.compareTo(b) == 0).isEqualTo(a.equals(b));
    }

    @Property(tries = 100)
    void samePortsOrderByHost(@ForAll @IntRange(min = 1, max = 65535) int port) {
        assertThat(PeerAddress.of("alpha", port)).isLessThan(PeerAddress.of("beta", 1));
    }

    @Provide
    Arbitrary<PeerAddress> addresses() {
        Arbitrary<String> names = Arbitraries.strings().withCharRange('a', 'z').withChars('-', '.').ofMinLength(1).ofMaxLength(12);
        Arbitrary<String> v4 = Arbitraries.integers().between(0, 255).list().ofSize(4)
                .map(parts -> parts.get(0) + "." + parts.get(1) + "." + parts.get(2) + "." + parts.get(3));
        Arbitrary<String> v6 = Arbitraries.of("::1", "fe80::1", "2001:db8::7", "::");
        Arbitrary<String> hosts = Arbitraries.oneOf(names, v4, v6);
        return hosts.flatMap(h -> Arbitraries.integers().between(1, 65535).map(p -> new PeerAddress(h, p)));
    }
}

package dev.baton.peer.transport.internal;

import dev.baton.peer.transport.PeerAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Mutual challenge-response over a shared secret: each side proves it knows the secret with
 * {@code HMAC-SHA256(secret, label | role | cluster | connecting address | accepting address | nonce_c | nonce_a)},
 * over a fresh random nonce from each side. The secret never travels; a proof is useless on another connection
 * (other nonces), in the other direction (other role) or for another pair of addresses or cluster. Proofs are compared
 * in constant time.
 */
public final class SharedSecretAuth {

    private static final String LABEL = "baton-peer-auth-v1";
    /** Role of the proof sent by the side that accepted the connection. */
    public static final String ACCEPTOR = "acceptor";
    /** Role of the proof sent by the side that connected. */
    public static final String CONNECTOR = "connector";

    private final SecretKeySpec key;
    private final SecureRandom random = new SecureRandom();

    public SharedSecretAuth(byte[] secret) {
        this.key = new SecretKeySpec(secret.clone(), "HmacSHA256");
    }

    /** A fresh random nonce. */
    public byte[] nonce() {
        byte[] nonce = new byte[Handshake.NONCE_BYTES];
        synchronized (random) {
            random.nextBytes(nonce);
        }
        return nonce;
    }

    /** The proof for {@code role} over the given connection parameters. */
    public byte[] proof(String role, String cluster, PeerAddress connector, PeerAddress acceptor,
            byte[] connectorNonce, byte[] acceptorNonce) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            field(mac, LABEL.getBytes(StandardCharsets.UTF_8));
            field(mac, role.getBytes(StandardCharsets.UTF_8));
            field(mac, cluster.getBytes(StandardCharsets.UTF_8));
            field(mac, connector.format().getBytes(StandardCharsets.UTF_8));
            field(mac, acceptor.format().getBytes(StandardCharsets.UTF_8));
            field(mac, connectorNonce);
            field(mac, acceptorNonce);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
        }
    }

    /** Length-prefixed, so that no two different inputs hash the same bytes. */
    private static void field(Mac mac, byte[] bytes) {
        mac.update((byte) (bytes.length >>> 24));
        mac.update((byte) (bytes.length >>> 16));
        mac.update((byte) (bytes.length >>> 8));
        mac.update((byte) bytes.length);
        mac.update(bytes);
    }

    /** Constant-time comparison of an expected and a received proof. */
    public static boolean matches(byte[] expected, byte[] received) {
        return MessageDigest.isEqual(expected, received);
    }
}

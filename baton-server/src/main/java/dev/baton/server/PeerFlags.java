package dev.baton.server;

import dev.baton.peer.bully.BullyConfig;
import dev.baton.peer.quorum.QuorumConfig;
import dev.baton.peer.transport.PeerAddress;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import picocli.CommandLine.Option;

/**
 * The flags of the serverless backends, {@code baton node --backend quorum} (old name {@code peer}) and
 * {@code --backend bully}, and their
 * validation into a {@link BackendSpec.Peer} or {@link BackendSpec.Bully}: every problem is a {@link CliError} usage
 * error that names the flag. Checked before anything binds or connects.
 */
final class PeerFlags {

    /** The flags only {@code --backend quorum} takes. */
    static final List<String> QUORUM_ONLY = List.of("--seeds", "--cluster-size", "--data-dir");

    /** The shortest secret the transport accepts (HMAC-SHA256 keys shorter than this are too easy to guess). */
    static final int MIN_SECRET_BYTES = 16;

    @Option(names = "--listen", paramLabel = "HOST:PORT",
            description = "quorum, bully: where this node listens for the other nodes, e.g. 127.0.0.1:7401; also its "
                    + "node id, so spell it as the other nodes' --seeds (and the leader store) do.")
    String listen;

    @Option(names = "--seeds", paramLabel = "HOST:PORT,...",
            description = "quorum: the seed nodes new and restarted nodes ask for the leader; the same list on every "
                    + "node, at most --cluster-size addresses.")
    String seeds;

    @Option(names = "--cluster-size", paramLabel = "N",
            description = "quorum: the number of nodes in the cluster, fixed; a leader needs a majority (N/2 + 1).")
    Integer clusterSize;

    @Option(names = "--secret-file", paramLabel = "FILE",
            description = "quorum, bully: authenticate the other nodes with the shared secret in FILE (at least 16 "
                    + "bytes, e.g. head -c 32 /dev/urandom > FILE; a trailing newline is ignored).")
    Path secretFile;

    @Option(names = "--peer-allow-unauthenticated",
            description = "quorum, bully: accept messages from anyone who can reach --listen when it is not a loopback "
                    + "address and there is no --secret-file (anyone could then vote and claim the leadership).")
    boolean allowUnauthenticated;

    @Option(names = "--leader-store", paramLabel = "STORE",
            description = "bully: where the group's leader record lives, which starting nodes read to find the "
                    + "leader: " + LeaderStores.FORMS + " (standalone: this node alone).")
    String leaderStore;

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = "quorum: keep this node's votes in DIR (created if missing), so a restarted node needs no "
                    + "recovery round (default: in memory).")
    Path dataDir;

    /** The serverless backends' flags that were given, for the error when the backend is a store. */
    List<String> given() {
        List<String> flags = new ArrayList<>();
        if (listen != null) {
            flags.add("--listen");
        }
        if (seeds != null) {
            flags.add("--seeds");
        }
        if (clusterSize != null) {
            flags.add("--cluster-size");
        }
        if (secretFile != null) {
            flags.add("--secret-file");
        }
        if (dataDir != null) {
            flags.add("--data-dir");
        }
        if (leaderStore != null) {
            flags.add("--leader-store");
        }
        if (allowUnauthenticated) {
            flags.add("--peer-allow-unauthenticated");
        }
        return flags;
    }

    /**
     * Validates the flags of {@code --backend quorum}.
     *
     * @param profile the {@code --profile} value, mapped onto {@link QuorumConfig#profile}
     * @param name    the word that chose the backend, {@code quorum} or its old name {@code peer}: messages repeat it
     * @throws CliError (usage) naming the flag at fault
     */
    BackendSpec.Peer spec(String profile, String name) {
        if (leaderStore != null) {
            throw CliError.usage("--leader-store applies to --backend bully only; --backend " + name + " keeps no "
                    + "leader record (its nodes find the leader through --seeds)");
        }
        PeerAddress self = listenAddress(name);
        if (seeds == null) {
            throw CliError.usage("--backend " + name + " needs --seeds HOST:PORT,...: the seed nodes, the same list "
                    + "on every node");
        }
        List<PeerAddress> seedList = addresses("--seeds", seeds);
        if (clusterSize == null) {
            throw CliError.usage("--backend " + name + " needs --cluster-size N: the number of nodes in the cluster");
        }
        if (clusterSize < 1) {
            throw CliError.usage("--cluster-size must be at least 1, was " + clusterSize);
        }
        if (seedList.size() > clusterSize) {
            throw CliError.usage("--seeds names " + seedList.size() + " nodes but --cluster-size is " + clusterSize
                    + ": the seeds are members of the cluster");
        }
        QuorumConfig config;
        try {
            config = QuorumConfig.profile(profile).clusterSize(clusterSize).seeds(seedList).build();
        } catch (IllegalArgumentException | NullPointerException e) {
            throw CliError.usage("invalid configuration: " + e.getMessage(), e);
        }
        return new BackendSpec.Peer(self, config, Optional.ofNullable(secretFile).map(PeerFlags::readSecret),
                Optional.ofNullable(dataDir).map(PeerFlags::usableDataDir), name);
    }

    /**
     * Validates the flags of {@code --backend bully}: {@code --listen} and {@code --leader-store} are required; the
     * quorum's {@code --seeds}, {@code --cluster-size} and {@code --data-dir} do not apply.
     *
     * @param profile the {@code --profile} value, mapped onto {@link BullyConfig#profile}
     * @throws CliError (usage) naming the flag at fault
     */
    BackendSpec.Bully bullySpec(String profile) {
        for (String flag : new String[] {seeds != null ? "--seeds" : null,
            clusterSize != null ? "--cluster-size" : null, dataDir != null ? "--data-dir" : null}) {
            if (flag != null) {
                throw CliError.usage(flag + " applies to --backend quorum only; bully nodes find their leader through "
                        + "--leader-store and keep nothing on disk");
            }
        }
        PeerAddress self = listenAddress("bully");
        if (leaderStore == null || leaderStore.isBlank()) {
            throw CliError.usage("--backend bully needs --leader-store STORE: where the group's leader record lives ("
                    + LeaderStores.FORMS + ")");
        }
        LeaderStores.check(leaderStore);
        BullyConfig config;
        try {
            config = BullyConfig.profile(profile).build();
        } catch (IllegalArgumentException | NullPointerException e) {
            throw CliError.usage("invalid configuration: " + e.getMessage(), e);
        }
        return new BackendSpec.Bully(self, config, leaderStore.strip(),
                Optional.ofNullable(secretFile).map(PeerFlags::readSecret));
    }

    /** {@code --listen}: required, and not a wildcard (it is the node's id). */
    private PeerAddress listenAddress(String backend) {
        if (listen == null) {
            throw CliError.usage("--backend " + backend + " needs --listen HOST:PORT: the address the other nodes "
                    + "reach this node at, which is also its node id");
        }
        PeerAddress self = address("--listen", listen);
        if (isWildcard(self.host())) {
            throw CliError.usage("--listen " + listen.strip() + " is a wildcard address; give the address the other "
                    + "nodes reach this node at (it is the node's id), e.g. 10.0.0.5:7400");
        }
        if (secretFile == null && !allowUnauthenticated && !isLoopback(self.host())) {
            throw CliError.usage("--listen " + self.format() + " is reachable from other machines: give --secret-file "
                    + "FILE so that only nodes with the secret take part, or --peer-allow-unauthenticated to accept "
                    + "anyone who can reach it");
        }
        return self;
    }

    /** {@code HOST:PORT} as a peer address, or a usage error naming {@code flag}. */
    static PeerAddress address(String flag, String text) {
        try {
            return PeerAddress.parse(text);
        } catch (IllegalArgumentException e) {
            throw CliError.usage(flag + ": " + e.getMessage() + " (expected HOST:PORT, e.g. 127.0.0.1:7401)", e);
        }
    }

    /** A comma-separated list of distinct peer addresses, at least one, or a usage error naming {@code flag}. */
    static List<PeerAddress> addresses(String flag, String text) {
        List<PeerAddress> result = new ArrayList<>();
        Set<PeerAddress> seen = new HashSet<>();
        for (String part : Arrays.asList(text.split(",", -1))) {
            if (part.isBlank()) {
                throw CliError.usage(flag + " has an empty entry in '" + text + "' (expected HOST:PORT,HOST:PORT,...)");
            }
            PeerAddress address = address(flag, part);
            if (!seen.add(address)) {
                throw CliError.usage(flag + " names " + address.format() + " twice");
            }
            result.add(address);
        }
        return result;
    }

    /** Whether {@code host} resolves to a loopback address (only this machine reaches it). */
    static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static boolean isWildcard(String host) {
        try {
            return InetAddress.getByName(host).isAnyLocalAddress();
        } catch (UnknownHostException e) {
            return false; // a name that does not resolve here may resolve on the peers; the bind says if it cannot
        }
    }

    /** The secret's bytes as they are in the file, without a trailing newline (CR LF or LF). */
    static byte[] readSecret(Path file) {
        byte[] bytes;
        try {
            if (Files.isDirectory(file)) {
                throw CliError.usage("--secret-file: " + file + " is a directory, not a file");
            }
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw CliError.usage("--secret-file: no such file: " + file, e);
        } catch (AccessDeniedException e) {
            throw CliError.usage("--secret-file: no permission to read " + file, e);
        } catch (IOException e) {
            throw CliError.usage("--secret-file: cannot read " + file + ": " + e.getMessage(), e);
        }
        int length = bytes.length;
        if (length > 0 && bytes[length - 1] == '\n') {
            length--;
            if (length > 0 && bytes[length - 1] == '\r') {
                length--;
            }
        }
        if (length < MIN_SECRET_BYTES) {
            throw CliError.usage("--secret-file: " + file + " holds " + length + " bytes; a shared secret needs at "
                    + "least " + MIN_SECRET_BYTES + " (e.g. head -c 32 /dev/urandom > " + file + ")");
        }
        return Arrays.copyOf(bytes, length);
    }

    /** The data directory, created if missing, after checking that this process can write files in it. */
    static Path usableDataDir(Path dir) {
        Path absolute = dir.toAbsolutePath().normalize();
        if (Files.exists(absolute) && !Files.isDirectory(absolute)) {
            throw CliError.usage("--data-dir: " + absolute + " exists and is not a directory");
        }
        try {
            Files.createDirectories(absolute);
        } catch (FileAlreadyExistsException e) {
            throw CliError.usage("--data-dir: cannot create " + absolute + ": " + e.getFile()
                    + " is in the way and is not a directory", e);
        } catch (IOException e) {
            throw CliError.usage("--data-dir: cannot create " + absolute + ": " + describe(e), e);
        }
        try {
            Path probe = Files.createTempFile(absolute, ".baton-write-check", ".tmp");
            Files.delete(probe);
        } catch (IOException e) {
            throw CliError.usage("--data-dir: " + absolute + " is not writable: " + describe(e), e);
        }
        return absolute;
    }

    private static String describe(IOException e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        String reason = e instanceof java.nio.file.FileSystemException fs ? fs.getReason() : null;
        return reason != null ? reason : e.getClass().getSimpleName() + (e.getMessage() != null ? ": "
                + e.getMessage() : "");
    }
}

package dev.baton.server;

import dev.baton.core.Baton;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.StoreException;
import java.util.Locale;

/**
 * Turns a {@code --backend} value into what a node runs on: the one place that knows which backends the CLI offers.
 * {@link #open(String, BackendSpec)} opens a {@link NodeBackend} (a store backend, or the serverless {@code quorum} or
 * {@code bully});
 * {@link #openStore(String)} connects a plain {@link CoordinationStore} for the store forms.
 */
final class Backends {

    /** The value that selects the serverless seed-node quorum protocol. */
    static final String QUORUM = "quorum";

    /**
     * The quorum protocol's old name, still accepted: the bully election is a peer protocol too, so {@code peer} did
     * not say which one it meant.
     */
    static final String PEER = "peer";

    /** The value that selects the serverless bully backend (seed 004). */
    static final String BULLY = "bully";

    /** The accepted forms, for help texts and error messages. */
    static final String FORMS = "memory, redis://HOST:PORT[/DB], "
            + "redis-sentinel://HOST:PORT[,HOST:PORT...][/DB]#MASTER, redis-cluster://HOST:PORT[,HOST:PORT...], "
            + "postgresql://USER[:PASSWORD]@HOST[:PORT][,HOST[:PORT]...]/DB[?schema=NAME], "
            + "etcd://HOST:PORT[,HOST:PORT...][/PREFIX], quorum or bully "
            + "(peer: the old name of quorum)";

    private Backends() {
    }

    /** Whether {@code spec} names the serverless quorum backend ({@code quorum}, or its old name {@code peer}). */
    static boolean isQuorum(String spec) {
        return spec != null && (spec.strip().equalsIgnoreCase(QUORUM) || spec.strip().equalsIgnoreCase(PEER));
    }

    /**
     * The name {@code spec} gave the quorum backend, {@code quorum} or {@code peer}, so that messages and the
     * node's status repeat the word the operator used.
     */
    static String quorumName(String spec) {
        return spec.strip().equalsIgnoreCase(PEER) ? PEER : QUORUM;
    }

    /** Whether {@code spec} names the serverless {@code bully} backend rather than a store. */
    static boolean isBully(String spec) {
        return spec != null && spec.strip().equalsIgnoreCase(BULLY);
    }

    /**
     * Opens the backend a node of {@code group} runs on.
     *
     * @throws CliError (usage) if the backend cannot be reached or set up
     */
    static NodeBackend open(String group, BackendSpec spec) {
        return open(group, spec, false);
    }

    /**
     * Opens the backend a node of {@code group} runs on; with {@code partitionable} (the hidden {@code --chaos-hooks}),
     * a serverless backend's transport can be cut from chosen peers ({@link NodeBackend#partitions()}) and a store
     * backend's calls held back ({@link NodeBackend#storeCallFaults()}).
     *
     * @throws CliError (usage) if the backend cannot be reached or set up
     */
    static NodeBackend open(String group, BackendSpec spec, boolean partitionable) {
        if (spec instanceof BackendSpec.Store store) {
            CoordinationStore opened = openStore(store.uri());
            return partitionable ? StoreBackend.withCallFaults(group, opened, store.config())
                    : new StoreBackend(group, opened, store.config());
        }
        if (spec instanceof BackendSpec.Peer peer) {
            return PeerBackend.open(group, peer, partitionable);
        }
        if (spec instanceof BackendSpec.Bully bully) {
            return BullyBackend.open(group, bully, partitionable);
        }
        throw new IllegalArgumentException("unknown backend " + spec);
    }

    /**
     * Connects the store named by {@code spec}, through {@link Baton#connect(String)}: the store forms are whatever the
     * backend modules on the class path accept.
     *
     * @throws CliError (usage) if the form is unknown or the store cannot be reached
     */
    static CoordinationStore openStore(String spec) {
        String value = spec == null ? "" : spec.strip();
        String lower = value.toLowerCase(Locale.ROOT);
        if (lower.equals(QUORUM) || lower.equals(PEER) || lower.equals(BULLY)) {
            throw CliError.usage("--backend " + lower + " has no store; this needs one of memory, redis://, "
                    + "postgresql:// or etcd://");
        }
        if (!Baton.connects(value)) {
            throw CliError.usage("unsupported backend '" + redact(value) + "' (expected " + FORMS + ")");
        }
        try {
            return Baton.connect(value);
        } catch (StoreException | IllegalArgumentException e) {
            throw CliError.usage("--backend: " + e.getMessage(), e);
        }
    }

    /** The backend address without a password, fit for an error message. */
    static String redact(String uri) {
        return uri.replaceAll("(?<=://)[^@/]*@", "***@");
    }
}

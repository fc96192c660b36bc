package dev.baton.server.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What the two store backends share: one private server, every node on its own proxied link to it (a
 * {@link StoreLinks}), the chaos lease timings, the faults of the links and of the server's process, and the fenced
 * register and work items in the store. A subclass names the server's own faults: how it restarts, and what it can be
 * restored from.
 */
abstract class StoreTarget implements ChaosTarget {

    /** Which clock the store runs on. */
    enum ServerClock {
        /** The machine's, as in production. */
        MACHINE,
        /** A {@link dev.baton.testkit.StoreClock} of its own, which the store-clock faults step and skew. */
        STEPPABLE;

        /** Steppable if any of {@code faults} moves the store's clock, else the machine's. */
        static ServerClock forFaults(List<FaultKind> faults) {
            return faults.stream().anyMatch(FaultKind::movesStoreClock) ? STEPPABLE : MACHINE;
        }
    }

    /**
     * The faults a single-server store runs on request only: the store-clock faults (they need a
     * {@link ServerClock#STEPPABLE} store) and the straggler.
     */
    static final List<FaultKind> ON_REQUEST = List.of(FaultKind.STORE_CLOCK_STEP_SMALL,
            FaultKind.STORE_CLOCK_STEP_BACK, FaultKind.STORE_CLOCK_SKEW, FaultKind.STORE_CLOCK_STEP_LARGE,
            FaultKind.STORE_LINK_STRAGGLER, FaultKind.STORE_CALL_STRAGGLER);

    private final StoreTimings timings;
    private StoreLinks links;

    StoreTarget(StoreTimings timings) {
        this.timings = timings;
    }

    /** Puts a link in front of the server for each node; call once the server runs. */
    final void link(String host, int port, int nodes) {
        links = new StoreLinks(host, port, nodes);
    }

    /** The URI node {@code index} connects to: the server's, with the node's proxy port. */
    abstract String uri(int proxyPort);

    /** SIGSTOP / SIGCONT of the server's processes. */
    abstract void pauseServer();

    abstract void resumeServer();

    /** The server's own faults (restarts and restores); the link and pause faults are handled here. */
    abstract void injectServerFault(FaultKind fault);

    /** Stops the server. */
    abstract void stopServer();

    /**
     * The node faults, then {@code serverFaults}, then the faults of the server's process and links. The order is part
     * of a seed's meaning (a trial draws an index into it), so a published run stays replayable: append new faults.
     */
    static List<FaultKind> withCommonFaults(FaultKind... serverFaults) {
        List<FaultKind> faults = new ArrayList<>(List.of(FaultKind.NONE, FaultKind.KILL_NODE, FaultKind.PAUSE_NODE));
        faults.addAll(List.of(serverFaults));
        faults.addAll(List.of(FaultKind.STORE_PAUSE, FaultKind.STORE_LATENCY, FaultKind.STORE_BLACKHOLE,
                FaultKind.STORE_RESET));
        return List.copyOf(faults);
    }

    @Override
    public final String nodeId(int index) {
        return "n" + (index + 1);
    }

    @Override
    public final List<String> nodeArgs(int index) {
        return timings.nodeArgs(uri(links.port(index)), nodeId(index));
    }

    @Override
    public final boolean hasItems() {
        return true;
    }

    @Override
    public final boolean fencesInStore() {
        return true;
    }

    @Override
    public final Duration leaderBound() {
        return timings.leaderBound();
    }

    @Override
    public final Duration leaseTtl() {
        return timings.leaseTtl();
    }

    @Override
    public final Duration storeClockMargin() {
        return timings.storeClockMargin();
    }

    @Override
    public final void inject(FaultKind fault, int target, Duration latency) {
        switch (fault) {
            case STORE_PAUSE -> pauseServer();
            case STORE_LATENCY -> links.latency(latency);
            case STORE_BLACKHOLE -> links.blackhole(target);
            case STORE_RESET -> links.reset(target);
            case STORE_LINK_STRAGGLER -> links.holdNextRequest(target);
            default -> injectServerFault(fault);
        }
    }

    @Override
    public final void heal(FaultKind fault) {
        switch (fault) {
            case STORE_PAUSE -> resumeServer();
            case STORE_LATENCY, STORE_BLACKHOLE, STORE_RESET, STORE_LINK_STRAGGLER -> links.heal();
            default -> { }
        }
    }

    @Override
    public final void close() {
        try {
            if (links != null) {
                links.close();
            }
        } finally {
            stopServer();
        }
    }
}

package dev.baton.bench.handover;

/**
 * Three contenders for one leadership (or lock), each on its own client, as the handover harness drives them.
 *
 * <p>The harness calls {@link #start}, then repeatedly {@link #release} on the contender that reported itself leader,
 * waits for the next leader's callback, and {@link #rejoin rejoins} the one that released, so that three contenders
 * are in the race at every release. Implementations report every leader callback to the sink and call
 * {@link LeaderSink#releasing()} immediately before the release call itself.
 */
public interface Contenders extends AutoCloseable {

    /** The name shown in result tables. */
    String name();

    /** A remark for the result table (configuration that matters for reading the numbers), or empty. */
    default String note() {
        return "";
    }

    /** Starts the three contenders; returns once they all contend. One of them will report itself leader. */
    void start(LeaderSink sink) throws Exception;

    /** Makes {@code contender}, the current leader, give up leadership. May return before the hand-over happened. */
    void release(int contender) throws Exception;

    /**
     * Puts {@code contender}, which released and has been succeeded, back into the race (re-created if release closed
     * it); returns once it is waiting for the next release, as far as the candidate lets one observe that.
     */
    void rejoin(int contender) throws Exception;

    /**
     * Told after each handover (warm-up included) from {@code from} to {@code to}, with its t0 and t1; contenders that
     * can split the latency into phases record them here.
     */
    default void handedOver(int from, int to, long t0, long t1) {
    }

    /** The median phases of the measured handovers as a markdown table, if this candidate records them. */
    default java.util.Optional<String> breakdown() {
        return java.util.Optional.empty();
    }

    /** Stops every contender and closes every client. */
    @Override
    void close();
}

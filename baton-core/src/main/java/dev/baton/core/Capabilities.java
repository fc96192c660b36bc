package dev.baton.core;

/**
 * What a process offers to the group: seed 000's {@code ProcessCapabilities}.
 *
 * @param canProcessDetections whether the process can handle routed results (seed 001's detections)
 * @param maxSubscriptions     the most work items the process wants to own, at least 0
 * @param preferredWorkload    preferred load in percent, 0 to 100
 */
public record Capabilities(boolean canProcessDetections, int maxSubscriptions, int preferredWorkload) {

    /** Capabilities of a process that says nothing special about itself. */
    public static final Capabilities DEFAULT = new Capabilities(true, 100, 80);

    public Capabilities {
        if (maxSubscriptions < 0) {
            throw new IllegalArgumentException("maxSubscriptions must be >= 0, was " + maxSubscriptions);
        }
        if (preferredWorkload < 0 || preferredWorkload > 100) {
            throw new IllegalArgumentException("preferredWorkload must be within 0..100, was " + preferredWorkload);
        }
    }
}

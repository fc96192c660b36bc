/**
 * Implementation of the peer transport; not a published API. {@code NettyConnections} runs the connections and the
 * handshake, {@code Handshake} and {@code FrameType} define the wire format, {@code SharedSecretAuth} the
 * authentication, {@code TransportCounters} the counters shared with the simulated network.
 */
package dev.baton.peer.transport.internal;

/**
 * The peer transport: how Baton's serverless protocols (seed 003's quorum membership, seed 004's bully election) send
 * messages to each other.
 *
 * <ul>
 *   <li>{@link dev.baton.peer.transport.Transport}: the narrow interface a protocol is written against: {@code send},
 *       {@code setHandler}, {@code stats}, {@code close}. Best effort, never blocks.</li>
 *   <li>{@link dev.baton.peer.transport.NettyTransport}: the production implementation on TCP: length-prefixed frames
 *       with a size cap, seed 003's active/passive greet with its duplicate-connection rule, a versioned handshake
 *       with the cluster name, optional mutual HMAC authentication with a shared secret.</li>
 *   <li>{@link dev.baton.peer.transport.PeerAddress}: a node's identity ({@code host:port}), ordered as seed 003
 *       orders nodes.</li>
 *   <li>{@link dev.baton.peer.transport.MessageCodec} and {@link dev.baton.peer.transport.JacksonMessageCodec}: a
 *       protocol's messages to bytes and back, strict on decode.</li>
 *   <li>{@link dev.baton.peer.transport.TransportStats}, {@link dev.baton.peer.transport.DropReason},
 *       {@link dev.baton.peer.transport.RejectReason}: counters.</li>
 * </ul>
 *
 * <p>The simulated twin is {@code dev.baton.peer.sim.SimulatedNetwork}. Everything under
 * {@code dev.baton.peer.transport.internal} is implementation and may change without notice. See
 * {@code docs/peer.md}.
 */
package dev.baton.peer.transport;

/**
 * The work cluster's shared state without a server: fenced maps and a message bus that the leader of a serverless
 * group (the seed-node quorum protocol or the bully election) replicates to its members under its term.
 * {@link dev.baton.peer.replica.ReplicatedWorkStore} is the entry point.
 */
package dev.baton.peer.replica;

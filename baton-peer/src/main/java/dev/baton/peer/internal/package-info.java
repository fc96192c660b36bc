/**
 * What the serverless protocols ({@code dev.baton.peer.quorum}, {@code dev.baton.peer.bully}) share inside their state
 * machines. Implementation, not a published API: it may change without notice.
 */
package dev.baton.peer.internal;
